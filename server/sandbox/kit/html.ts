/** A tiny HTML templating helper: interpolations are escaped unless wrapped in raw(). */
export class RawHtml {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

export const raw = (value: string) => new RawHtml(value);

export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

type Value = RawHtml | string | number | boolean | null | undefined | Value[];

function render(v: Value): string {
  if (v instanceof RawHtml) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === null || v === undefined || v === false) return '';
  return escapeHtml(v);
}

export function html(strings: TemplateStringsArray, ...values: Value[]): RawHtml {
  let out = strings[0];
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1];
  });
  return new RawHtml(out);
}
