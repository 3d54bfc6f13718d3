export { type Placeholder, Redactor, SECRET_MASK, TOKEN_MASK } from './redact';
export { renderElement, renderSnapshot } from './render';
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
