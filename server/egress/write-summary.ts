import type { HeldWrite } from './change-gate';
import { formParts, multipartBoundary } from './multipart-form';

/**
 * What a held write would send, for a person to read before approving it: its method, its URL, and its body as
 * fields (form fields, multipart parts, JSON leaves as dotted paths, or the text). Bounded for display: at most
 * MAX_FIELDS fields (then one `…` field saying how many more), names and values cut. Every value, and each query
 * value of the URL, passes through `mask(name, value)` before it is cut: the caller hides secrets and parameters
 * there, and sees the whole value to find them.
 */
export interface WriteSummary {
  method: string;
  /** The URL as a person reads it: the query decoded, each value masked (`&`, `=`, `#`, `%` kept escaped). */
  url: string;
  fields: SummaryField[];
  bodyBytes: number;
}

export interface SummaryField {
  name: string;
  value: string;
}

export type Mask = (name: string, value: string) => string;

export const MAX_FIELDS = 50;
const MAX_NAME = 100;
const MAX_VALUE = 200;
/** JSON deeper than this is shown as `{…}` or `[…]` at that depth: a path of 32 names is already past reading. */
const MAX_JSON_DEPTH = 32;

type Field = [name: string, value: string];

export function summarizeWrite(write: HeldWrite, mask: Mask): WriteSummary {
  return {
    method: write.method,
    url: summarizeUrl(write.url, mask),
    fields: bounded(bodyFields(write), mask),
    bodyBytes: write.body.length,
  };
}

/** The first MAX_FIELDS fields, masked and cut, and a last `…` field counting the others. */
function bounded(fields: Iterable<Field>, mask: Mask): SummaryField[] {
  const out: SummaryField[] = [];
  let more = 0;
  for (const [name, value] of fields) {
    if (out.length < MAX_FIELDS) out.push({ name: cut(name, MAX_NAME), value: cut(mask(name, value), MAX_VALUE) });
    else more += 1;
  }
  if (more) out.push({ name: '…', value: `${more} more` });
  return out;
}

function summarizeUrl(raw: string, mask: Mask): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return cut(raw, MAX_VALUE);
  }
  const query = bounded(url.searchParams, mask).map(({ name, value }) => `${escapeQuery(name)}=${escapeQuery(value)}`);
  return `${url.origin}${url.pathname}${query.length ? `?${query.join('&')}` : ''}`;
}

/** Decoded for reading, but a value's `&` or `=` must not pass for another parameter. */
function escapeQuery(text: string): string {
  return text.replace(/[&=#%\p{Cc}]/gu, (c) => encodeURIComponent(c));
}

function bodyFields(write: HeldWrite): Iterable<Field> {
  const { body, contentType } = write;
  if (body.length === 0) return [];
  const type = contentType?.split(';')[0]!.trim().toLowerCase() || null;
  if (type === 'application/x-www-form-urlencoded') return new URLSearchParams(body.toString('utf8'));
  if (type === 'multipart/form-data') return multipartFields(body, contentType!) ?? [opaque(body, type)];
  if (type === 'application/json' || type?.endsWith('+json')) return jsonFields(body.toString('utf8'));
  if (type === 'text/plain') return [['body', body.toString('utf8')]];
  // A WebSocket message has no content type: most are JSON or text, and read as such.
  if (type === null && write.method === 'WEBSOCKET') return messageFields(body);
  return [opaque(body, type ?? 'unknown type')];
}

function multipartFields(body: Buffer, contentType: string): Field[] | null {
  const boundary = multipartBoundary(contentType);
  const parts = boundary ? formParts(body, boundary) : null;
  return (
    parts?.map(({ name, filename, content }): Field => [
      name,
      filename === null ? content.toString('utf8') : `<file ${filename}, ${bytes(content.length)}>`,
    ]) ?? null
  );
}

function messageFields(body: Buffer): Iterable<Field> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    return [opaque(body, 'binary data')];
  }
  return jsonFields(text);
}

/** The leaves of a JSON document as dotted paths (`message.text`, `items[0].x`), in document order; not JSON: the text. */
function* jsonFields(text: string): Generator<Field> {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    yield ['body', text];
    return;
  }
  // Walked with a stack of its own, not by recursion: a 1 MiB body can nest half a million levels deep.
  const stack: { path: string; value: unknown; depth: number }[] = [{ path: '', value: document, depth: 0 }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const { path, value, depth } = item;
    if (value === null || typeof value !== 'object') {
      yield [path || 'body', typeof value === 'string' ? value : JSON.stringify(value)];
      continue;
    }
    const children = Array.isArray(value)
      ? value.map((child: unknown, i): [string, unknown] => [`${path}[${i}]`, child])
      : Object.entries(value).map(([key, child]): [string, unknown] => [path ? `${path}.${key}` : key, child]);
    if (children.length === 0 || depth >= MAX_JSON_DEPTH) {
      const inside = children.length === 0 ? '' : '…';
      yield [path || 'body', Array.isArray(value) ? `[${inside}]` : `{${inside}}`];
      continue;
    }
    for (let i = children.length - 1; i >= 0; i -= 1) stack.push({ path: children[i]![0], value: children[i]![1], depth: depth + 1 });
  }
}

const opaque = (body: Buffer, what: string): Field => ['body', `<${bytes(body.length)} of ${what}>`];

const bytes = (n: number) => `${n} ${n === 1 ? 'byte' : 'bytes'}`;

/** At most `max` characters, then `…`; a surrogate pair is never split. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max;
  return `${text.slice(0, end)}…`;
}
