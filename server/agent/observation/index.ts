export { Redactor, SECRET_MASK, TOKEN_MASK, type Placeholder } from './redact';
export {
  describeElement,
  elementLocator,
  extractText,
  INDEX_ATTRIBUTE,
  OPTION_ATTRIBUTE,
  quote,
  runDom,
  takeSnapshot,
  type ElementStates,
  type ObservedElement,
  type PageSnapshot,
  type SnapshotLine,
  type SnapshotOptions,
} from './snapshot';
export { renderElement, renderSnapshot } from './render';
