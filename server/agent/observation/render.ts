import { type ElementStates, type ObservedElement, type PageSnapshot, quote, type SnapshotLine } from './snapshot';
import { escapeInline, escapeOneLine, escapeText, type InjectionMarker } from './untrusted';

/**
 * The compact text the model reads:
 *
 *   URL: http://orbit.sandbox.localhost:4000/
 *   Title: Feed | Orbit
 *
 *   -- navigation 'Main' --
 *   [3] link 'Home' current
 *   # Home feed
 *   [9] button 'Start a post' haspopup=dialog
 *   Grace Goodwin · Product Manager
 *   -- frame 'Card details' --
 *   [12] textbox 'Expiry' value='' placeholder='MM/YY' invalid error='Enter a date in the future'
 *   (a frame from ads.example.net was not read: it is not on the provider's site)
 *   (… 3,200 more characters of text in region 'Comments' not shown: extract with index 31 reads them)
 *
 * Every string in it came from the page, so each is escaped (./untrusted.ts): page text cannot start a line the
 * way an element or one of our messages does, cannot name the untrusted block's boundary, and cannot carry a
 * placeholder. What had to be escaped is reported in `markers`.
 */
export interface RenderOptions {
  maxChars?: number;
  /** The run's boundary (escaped wherever page text contains it). */
  boundary?: string;
  /** Receives the injection markers found while escaping. */
  markers?: InjectionMarker[];
}

function states(s: ElementStates): string[] {
  const out: string[] = [];
  if (s.checked !== undefined) out.push(s.checked === 'mixed' ? 'mixed' : s.checked ? 'checked' : 'unchecked');
  if (s.selected) out.push('selected');
  if (s.pressed !== undefined) out.push(s.pressed === 'mixed' ? 'pressed=mixed' : s.pressed ? 'pressed' : 'not-pressed');
  if (s.expanded !== undefined) out.push(s.expanded ? 'expanded' : 'collapsed');
  if (s.disabled) out.push('disabled');
  if (s.readonly) out.push('readonly');
  if (s.required) out.push('required');
  if (s.invalid) out.push('invalid');
  if (s.focused) out.push('focused');
  if (s.current) out.push('current');
  if (s.haspopup) out.push(`haspopup=${s.haspopup}`);
  if (s.multiline) out.push('multiline');
  if (s.scroll) out.push(`scrollable=${s.scroll}`);
  return out;
}

/** A role or state the page may have spelled itself (role="…", aria-haspopup="…"): one word, nothing else. */
const token = (s: string) => s.replace(/[^\w=-]/g, '_');

export function renderElement(e: ObservedElement, esc: (s: string) => string = (s) => s): string {
  const parts = [`[${e.index}] ${token(e.role)} ${quote(esc(e.name))}`];
  // a name the page did not give: the model should know it is a guess (from its icon, class, headers …)
  if (e.nameFrom) parts.push(`name-from=${token(e.nameFrom)}`);
  if (e.value !== undefined) parts.push(`value=${quote(esc(e.value).replace(/\n/g, '\\n'))}`);
  if (e.format) parts.push(`format=${e.format.replace(/[^\w:-]/g, '_')}`);
  if (e.placeholder) parts.push(`placeholder=${quote(esc(e.placeholder))}`);
  parts.push(...states(e.states).map(token));
  if (e.error) parts.push(`error=${quote(esc(e.error))}`);
  if (e.options?.length) parts.push(`options=[${e.options.map((o) => quote(esc(o))).join(', ')}]`);
  return parts.join(' ');
}

/** Text the observation left out, and how to read it. */
function cutNote(c: Extract<SnapshotLine, { k: 'cut' }>, oneLine: (s: string) => string): string {
  const chars = c.chars.toLocaleString('en-US');
  if (c.i === undefined)
    return `(\u2026 ${chars} more characters of page text not shown: extract without index reads the page, page by page)`;
  return `(\u2026 ${chars} more characters of text in ${oneLine(c.where ?? 'this section')} not shown: extract with index ${c.i} reads them)`;
}

export function renderSnapshot(s: PageSnapshot, opts: RenderOptions = {}): string {
  const boundary = opts.boundary ?? '';
  const markers = opts.markers ?? [];
  const inline = (v: string) => escapeInline(v, boundary, markers);
  const oneLine = (v: string) => escapeOneLine(v, boundary, markers);
  const byIndex = new Map(s.elements.map((e) => [e.index, e]));
  const head = [`URL: ${oneLine(s.url)}`, `Title: ${oneLine(s.title)}`];
  if (s.modal) head.push('A modal dialog is open: only its content is shown.');
  const body: string[] = [];
  for (const line of s.lines) {
    if (line.k === 'e') {
      const e = byIndex.get(line.i);
      if (e) body.push(line.h ? `${'#'.repeat(line.h)} ${renderElement(e, inline)}` : renderElement(e, inline));
    } else if (line.k === 's') body.push(`-- ${oneLine(line.s)} --`);
    else if (line.k === 'cut') body.push(cutNote(line, oneLine));
    else if (line.k === 'frame') body.push(`(a frame from ${oneLine(line.host)} was not read: it is not on the provider's site)`);
    else for (const l of escapeText(line.s, boundary, markers)) body.push(line.h ? `${'#'.repeat(line.h)} ${l}` : l);
  }
  if (s.truncated.elements) body.push(`(${s.truncated.elements} more interactive elements not shown)`);
  let text = `${head.join('\n')}\n\n${body.join('\n')}`;
  const max = opts.maxChars ?? 24_000;
  if (text.length > max) text = `${text.slice(0, max)}\n(observation truncated)`;
  return text;
}
