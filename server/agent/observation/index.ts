export { evaluateHandleOnElement, evaluateOnElement, locateFromElement } from './element-calls';
export { type HeldValue, listedNodes } from './element-refs';
export { type Placeholder, Redactor, SECRET_MASK, TOKEN_MASK } from './redact';
export { renderElement, type RenderOptions, renderSnapshot } from './render';
export {
  describeElement,
  elementLocator,
  type ElementRef,
  type ElementStates,
  type ExtractResult,
  extractText,
  type ObservedElement,
  optionLocator,
  type PageSnapshot,
  quote,
  runDom,
  runDomAt,
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
export { observeWith, withRefs } from './with-refs';
