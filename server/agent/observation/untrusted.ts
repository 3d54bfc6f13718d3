import { randomBytes } from 'node:crypto';

/**
 * Page content is untrusted input: anyone who can put text on a provider's page (another user's post, an ad, a
 * profile name) writes part of what the model reads. This module makes that text unable to pass for ours:
 *   - the observation sits between an opening and a closing line that carry a random per-run boundary the page
 *     cannot predict, and page text that names the block or the boundary is escaped;
 *   - a line of page text shaped like one of our lines (an element "[12] button 'Post'", "Your previous turn
 *     failed: …") is prefixed with PAGE_TEXT_MARK, so it no longer starts like ours and says what it is;
 *   - our placeholder syntax in page text is broken up ("{{" → "{ {") before parameter values are replaced by
 *     placeholders, so the only placeholders the model sees are the ones we put there.
 * Whatever had to be escaped is reported as an InjectionMarker: such a run is never recorded for replay, and a
 * parameter a page asked for by placeholder is never filled in.
 */
export interface InjectionMarker {
  kind: 'placeholder' | 'element_line' | 'prompt_line' | 'boundary';
  /** The offending page text (shortened). */
  text: string;
  /** For a placeholder: the parameter name the page asked for. */
  parameter?: string;
}

export const UNTRUSTED_TAG = 'untrusted_page_content';
export const PAGE_TEXT_MARK = '(page text) ';

/** 96 random bits per run: a page cannot close a block whose boundary it never saw. */
export const newBoundary = (): string => randomBytes(12).toString('hex');

export const openTag = (boundary: string) => `<${UNTRUSTED_TAG} boundary="${boundary}">`;
export const closeTag = (boundary: string) => `</${UNTRUSTED_TAG} boundary="${boundary}">`;

/** Breaks "{{" so no page text is ever one of our placeholders (applied to raw page text, before values become placeholders). */
export const defusePlaceholders = (s: string): string => (s.includes('{{') ? s.replace(/\{(?=\{)/g, '{ ') : s);

/** A placeholder as it looks after defusing (or as a page may spell it): "{ {parameters.x}}", "{{ parameters.x }}". */
const PAGE_PLACEHOLDER = /\{\s+\{\s*parameters\.([A-Za-z0-9_$.-]+)/gi;
const TAG_MENTION = /<(\s*\/?\s*untrusted[\s_-]*page[\s_-]*content)/gi;
/** Every character that ends a line for a reader (a model's tokenizer treats the Unicode separators as breaks too). */
const LINE_BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/;

/** Lines we write that page text must never be able to pass for; a page line shaped like one is a marker. */
const IMITATIONS: [InjectionMarker['kind'], RegExp][] = [
  ['element_line', /^[\s#]*\[\s*\d+\s*\]/],
  [
    'prompt_line',
    /^\s*(your previous turn failed|this is your last step|not executed: only one tool call|rejected: the data does not match)/i,
  ],
  ['prompt_line', /^\s*step \d+: \(observation of /i],
  ['boundary', /^\s*\(page text\)/i],
];
/** Shapes of our own lines that are also ordinary page text ("Step 2 of 3", "Error: …"): escaped, but not a marker. */
const AMBIGUOUS =
  /^\s*(url:|title:|tabs:|step \d+ of \d+|error:|action:|--.*--\s*$|\(\d+ more interactive elements|\((page text|observation) truncated\)|\((\u2026|\.\.\.)|\(a frame from |a modal dialog is open)/i;

const short = (s: string) => (s.length > 120 ? `${s.slice(0, 120)}…` : s);

/** Escapes page text inside a line of ours (a name, value, title): boundary and tag mentions; notes placeholders. */
export function escapeInline(s: string, boundary: string, markers: InjectionMarker[]): string {
  let out = s;
  if (boundary && out.includes(boundary)) {
    markers.push({ kind: 'boundary', text: short(s) });
    out = out.split(boundary).join('[boundary]');
  }
  if (TAG_MENTION.test(out)) {
    markers.push({ kind: 'boundary', text: short(s) });
    out = out.replace(TAG_MENTION, '&lt;$1');
  }
  TAG_MENTION.lastIndex = 0;
  // Placeholders the page wrote were already broken up by the Redactor (before it put ours in for values).
  for (const m of out.matchAll(PAGE_PLACEHOLDER)) markers.push({ kind: 'placeholder', text: short(s), parameter: m[1]! });
  return out;
}

/** Escapes one line of page text that stands on a line of its own in the observation. */
export function escapeLine(line: string, boundary: string, markers: InjectionMarker[]): string {
  const out = escapeInline(line, boundary, markers);
  for (const [kind, pattern] of IMITATIONS) {
    if (pattern.test(out)) {
      markers.push({ kind, text: short(line) });
      return PAGE_TEXT_MARK + out;
    }
  }
  return AMBIGUOUS.test(out) ? PAGE_TEXT_MARK + out : out;
}

/** Page text that may hold line breaks → escaped lines (every physical line checked on its own). */
export function escapeText(text: string, boundary: string, markers: InjectionMarker[]): string[] {
  return text.split(LINE_BREAK).map((l) => escapeLine(l, boundary, markers));
}

/** Page text put inside our own line (a title, a region label): line breaks become spaces, then inline escaping. */
export const escapeOneLine = (s: string, boundary: string, markers: InjectionMarker[]) =>
  escapeInline(s.split(LINE_BREAK).join(' '), boundary, markers);

/** The untrusted block: the rendered page between the opening and the closing boundary line. */
export function untrustedBlock(body: string, boundary: string): string {
  return `${openTag(boundary)}\n${body}\n${closeTag(boundary)}`;
}
