import { html, type RawHtml } from '../sandbox/kit/html';

/**
 * What the dashboard's tables share so they fit at 1280 px and on a phone: a time that never wraps (minutes
 * shown, the full UTC instant on hover and in `datetime`), ids clipped to a fixed width but whole in the text
 * (search, copy and tests still see the full id), and a wrapper that scrolls a table sideways instead of the
 * page. On narrow screens the CSS turns each row into a card whose cells carry their column name (data-label).
 */
export const fullTime = (d: Date) =>
  d
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');

export function when(d: Date | null | undefined): RawHtml {
  if (!d) return html`—`;
  const iso = d.toISOString();
  return html`<time class="when" datetime="${iso}" title="${fullTime(d)}">${iso.slice(0, 10)} ${iso.slice(11, 16)}</time>`;
}

/** An id as a link to its page (or plain when it has none). */
export function idRef(id: string, href?: string): RawHtml {
  const code = html`<code class="id" title="${id}">${id}</code>`;
  return href ? html`<a href="${href}">${code}</a>` : code;
}

/** A table that scrolls inside its own box when it cannot fit; `labels` name the columns for the phone layout. */
export function dataTable(opts: { testId?: string; className?: string; labels: string[]; body: RawHtml | RawHtml[] }): RawHtml {
  return html`<div class="table-wrap">
    <table class="striped cards ${opts.className ?? ''}" ${opts.testId ? html`data-testid="${opts.testId}"` : ''}>
      <thead><tr>${opts.labels.map((l) => html`<th>${l}</th>`)}</tr></thead>
      <tbody>${opts.body}</tbody>
    </table>
  </div>`;
}

/** A cell that names its column on a phone (see dataTable). */
export const cell = (label: string, content: RawHtml | string | number, className = '') =>
  html`<td data-label="${label}" ${className ? html`class="${className}"` : ''}>${content}</td>`;
