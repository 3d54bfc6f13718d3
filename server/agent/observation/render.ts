import { type ElementStates, type ObservedElement, type PageSnapshot, quote } from './snapshot';
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
  return out;
}

/** A role or state the page may have spelled itself (role="…", aria-haspopup="…"): one word, nothing else. */
const token = (s: string) => s.replace(/[^\w=-]/g, '_');

export function renderElement(e: ObservedElement, esc: (s: string) => string = (s) => s): string {
  const parts = [`[${e.index}] ${token(e.role)} ${quote(esc(e.name))}`];
  if (e.value !== undefined) parts.push(`value=${quote(esc(e.value).replace(/\n/g, '\\n'))}`);
  parts.push(...states(e.states).map(token));
  if (e.options?.length) parts.push(`options=[${e.options.map((o) => quote(esc(o))).join(', ')}]`);
  return parts.join(' ');
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
    else for (const l of escapeText(line.s, boundary, markers)) body.push(line.h ? `${'#'.repeat(line.h)} ${l}` : l);
  }
  if (s.truncated.elements) body.push(`(${s.truncated.elements} more interactive elements not shown)`);
  if (s.truncated.text) body.push('(page text truncated)');
  let text = `${head.join('\n')}\n\n${body.join('\n')}`;
  const max = opts.maxChars ?? 24_000;
  if (text.length > max) text = `${text.slice(0, max)}\n(observation truncated)`;
  return text;
}
