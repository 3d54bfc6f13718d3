/**
 * The shapes of an observation (see snapshot.ts for how it is taken, render.ts for how it is written).
 */
export interface ElementStates {
  checked?: boolean | 'mixed';
  disabled?: boolean;
  expanded?: boolean;
  selected?: boolean;
  pressed?: boolean | 'mixed';
  required?: boolean;
  invalid?: boolean;
  readonly?: boolean;
  focused?: boolean;
  current?: boolean;
  haspopup?: string;
  /** A field that takes line breaks: a <textarea>, a multi-line editor (contenteditable, aria-multiline). */
  multiline?: boolean;
  /** A box that scrolls on its own (the scroll tool takes its index), and where its hidden content is. */
  scroll?: 'more-below' | 'more-above' | 'more-above-and-below';
}

export interface ObservedElement {
  index: number;
  /**
   * ARIA role (explicit or implied by the tag; a date/time input is a textbox, its `format` says which kind). An
   * element made clickable by a listener, onclick or tabindex alone is a button (a link when it is an <a>).
   */
  role: string;
  name: string;
  /**
   * Set when the page gave the element no name and `name` is the best hint there is (dom/hints.page.ts): a data
   * attribute, its icon, the words of its class or id, where the link goes, a table cell's headers, the text next to it.
   */
  nameFrom?: 'data' | 'icon' | 'class' | 'href' | 'headers' | 'nearby' | 'row' | 'position' | 'chart';
  /** The tag of the element that carries the index (for a hidden-input control: the label or wrapper). */
  tag: string;
  /** The nearest labelled container: "dialog 'Create a post'", "article 'Post by Ada'", "navigation 'Main'". */
  scope: string | null;
  value?: string;
  states: ElementStates;
  /** Options of a native <select>. */
  options?: string[];
  /** Date/time inputs: the format of value, which is also what the input accepts (yyyy-mm-dd, hh:mm …). */
  format?: string;
  /** The placeholder a person sees in an empty field (when it is not already the name). */
  placeholder?: string;
  /** An invalid field: the message a person sees (its error text, or the browser's validation message). */
  error?: string;
  /**
   * A checkbox, radio or switch whose native input cannot take a click itself (display:none, zero size, clipped,
   * covered by its styled box). The index is then on what a person clicks: its visible label (tag 'label') or
   * the clickable wrapper around it; a click there toggles the input, and Playwright's check()/isChecked() on it
   * follow the label to the input. When nothing visible wraps it the index stays on the input (tag 'input'):
   * focus it and press Space, or click through the DOM.
   */
  hiddenInput?: boolean;
  /**
   * The iframes the element is inside, outermost first, as the numbers the snapshot gave them
   * (each iframe's number in its document, refs.frame); absent in the top document.
   */
  frame?: number[];
  /** A readable section (listed where the observation cut text): its section number (refs.sec). */
  section?: number;
}

/**
 * A line of the page view: text (h = inside a heading of that level), an element by index, a region label, text
 * left out (chars, where it stands, the index extract reads it by), or a frame that was not read (its host).
 */
export type SnapshotLine =
  | { k: 't'; s: string; h?: number }
  | { k: 'e'; i: number; h?: number }
  | { k: 's'; s: string }
  | { k: 'cut'; chars: number; where?: string; i?: number }
  | { k: 'frame'; host: string };

export interface PageSnapshot {
  url: string;
  title: string;
  /** A modal dialog is open: only its content is in the snapshot. */
  modal: boolean;
  elements: ObservedElement[];
  lines: SnapshotLine[];
  truncated: { elements: number; text: boolean };
  /** Sections whose text was cut, listed so extract can read them by index (not controls: not in elements). */
  sections?: ObservedElement[];
}
