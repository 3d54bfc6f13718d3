import type { ObservedElement } from '../types';

/** In the page (see agent-dom.page.ts): what a snapshot of one document is asked (SnapshotArgs) and gives (RawDoc). */

export interface SnapshotArgs {
  maxElements?: number;
  /** The text the document may give, in characters; past it text lines keep only their length. */
  rawTextChars?: number;
  /** Ask getEventListeners (when the page has it). */
  listeners?: boolean;
  /** The first index to give (indexes are unique across the documents of a page). */
  startIndex?: number;
  /** The first frame number to give. */
  frameStart?: number;
  /** false: nothing counts as on screen (a frame that is off screen). */
  onScreen?: boolean;
  /** The document is a frame's: its body is a section named frameTitle (or its title). */
  frameDoc?: boolean;
  frameTitle?: string;
  /** The scope the frame stands in, for elements with none of their own inside. */
  baseScope?: string | null;
}

export interface RawSection {
  id: number;
  role: string;
  name: string;
  tag: string;
  /** The index of the element it is, when it is one (a dialog, a scrollable box). */
  idx: number;
}

export interface RawFrameLine {
  k: 'f';
  f: number;
  /** The iframe's title or aria-label. */
  t: string;
  /** The scope the iframe stands in. */
  sc: string | null;
  v: 0 | 1;
  /** Its src, resolved (what a frame that failed to load or has an opaque origin is judged by). */
  u: string;
}

/**
 * A line of one document: text (h: in a heading of that level; c: its section; v: on screen; n: the length of
 * text left out past rawTextChars), an element by index, a region label, an iframe.
 */
export type RawLine =
  | { k: 't'; s: string; h?: number; c?: number; v?: 1; n?: number }
  | { k: 'e'; i: number; h?: number }
  | { k: 's'; s: string }
  | RawFrameLine;

export interface RawDoc {
  url: string;
  title: string;
  modal: boolean;
  elements: ObservedElement[];
  lines: RawLine[];
  sections: RawSection[];
  truncated: { elements: number; text: boolean };
  /** The next index and frame number to give, in the next document. */
  next: number;
  nextFrame: number;
  /** Iframes marked in this document. */
  frames: number;
  /** Listener queries made. */
  checks: number;
  /** ::before/::after styles read (pseudo.page.ts reads only those a rule can give text). */
  pseudo: number;
}
