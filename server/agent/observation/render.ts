import { type ElementStates, type ObservedElement, type PageSnapshot, quote } from './snapshot';

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
 */
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

export function renderElement(e: ObservedElement): string {
  const parts = [`[${e.index}] ${e.role} ${quote(e.name)}`];
  if (e.value !== undefined) parts.push(`value=${quote(e.value.replace(/\n/g, '\\n'))}`);
  parts.push(...states(e.states));
  if (e.options?.length) parts.push(`options=[${e.options.map(quote).join(', ')}]`);
  return parts.join(' ');
}

export function renderSnapshot(s: PageSnapshot, opts: { maxChars?: number } = {}): string {
  const byIndex = new Map(s.elements.map((e) => [e.index, e]));
  const head = [`URL: ${s.url}`, `Title: ${s.title}`];
  if (s.modal) head.push('A modal dialog is open: only its content is shown.');
  const body: string[] = [];
  for (const line of s.lines) {
    if (line.k === 'e') {
      const e = byIndex.get(line.i);
      if (e) body.push(line.h ? `${'#'.repeat(line.h)} ${renderElement(e)}` : renderElement(e));
    } else if (line.k === 's') body.push(`-- ${line.s} --`);
    else body.push(line.h ? `${'#'.repeat(line.h)} ${line.s}` : line.s);
  }
  if (s.truncated.elements) body.push(`(${s.truncated.elements} more interactive elements not shown)`);
  if (s.truncated.text) body.push('(page text truncated)');
  let text = `${head.join('\n')}\n\n${body.join('\n')}`;
  const max = opts.maxChars ?? 24_000;
  if (text.length > max) text = `${text.slice(0, max)}\n(observation truncated)`;
  return text;
}
