export { type Placeholder, Redactor, SECRET_MASK, TOKEN_MASK } from './redact';
export { renderElement, type RenderOptions, renderSnapshot } from './render';
export {
  describeElement,
  elementLocator,
  type ElementStates,
  extractText,
  INDEX_ATTRIBUTE,
  type ObservedElement,
  OPTION_ATTRIBUTE,
  type PageSnapshot,
  quote,
  runDom,
  type SnapshotLine,
  type SnapshotOptions,
  takeSnapshot,
} from './snapshot';
export {
  closeTag,
  escapeText,
  type InjectionMarker,
  newBoundary,
  openTag,
  PAGE_TEXT_MARK,
  UNTRUSTED_TAG,
  untrustedBlock,
} from './untrusted';
