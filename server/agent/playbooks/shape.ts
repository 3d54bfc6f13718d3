import { type LeafSpec, parseLeaf } from '../../../contract/response-format';
import { PlaybookNotApplicable } from './errors';
import { type DescribedField, fieldByMeaning } from './result-words';

/**
 * Fits what a playbook read to the caller's responseFormat. Each property of the format is looked up among
 * the playbook's fields by its normalised name (case, '_' and '-' ignored) and the field's aliases, then by
 * meaning (result-meanings below: `sent: boolean` is "was it sent", `sentAt` "when"); a field is taken only
 * when its value fits the leaf's type, so a time never answers a boolean. Nested objects are fitted the same
 * way. Values are converted only where it is lossless (a number for a "string" leaf, "1,234" for a "number").
 *
 * A property the playbook cannot fill makes it not applicable (the next way gets the request) — unless the
 * shaping is lenient (after the playbook's write took effect, see strategy.ts): then the property is null and
 * a warning names it, because failing a request whose write happened invites a retry that repeats it.
 */
export type FieldAliases = Record<string, string[]>;

export interface ShapeWarning {
  code: 'RESULT_FIELD_UNFILLED';
  path: string;
  message: string;
}

export interface ShapeOptions {
  /** Collects what could not be filled (null instead) rather than throwing. */
  lenient?: { warnings: ShapeWarning[] };
  /**
   * What the playbook says its fields are (its resultFields, in the responseFormat grammar): a key no field is
   * named is matched by its words and description against these (result-words.ts).
   */
  fieldMeanings?: Readonly<Record<string, unknown>>;
}

/** The declared description of each field (the text after " - " in its resultFields leaf). */
export function describedFields(names: readonly string[], meanings: Readonly<Record<string, unknown>> = {}): DescribedField[] {
  return names.map((name) => {
    const meaning = meanings[name];
    const leaf = typeof meaning === 'string' ? parseLeaf(meaning) : null;
    return leaf && !('error' in leaf) && leaf.description ? { name, description: leaf.description } : { name };
  });
}

const norm = (key: string) => key.toLowerCase().replace(/[_\-\s]/g, '');

/**
 * What common result names mean, whatever a playbook calls its fields. A boolean named like a past act
 * (sent, posted, created, ok, done …) asks whether the playbook's act happened: its boolean field named so.
 * A name ending in "at" / "time" / "date" (or when, timestamp) asks when: its first field ending in At.
 */
const HAPPENED = new Set(
  (
    'sent posted published created opened closed submitted delivered starred followed unfollowed liked commented replied ' +
    'success succeeded successful ok done completed performed'
  ).split(' '),
);
const asksWhether = (key: string) => {
  const k = norm(key).replace(/^(?:is|was|has|did)(?=[a-z])/, '');
  return HAPPENED.has(k) || HAPPENED.has(k.replace(/successfully$/, ''));
};
/** Acts that make the thing a write playbook reports: "createdAt" of a post is its postedAt, of a message its sentAt. */
const MAKING = new Set('created posted published sent opened submitted made written added'.split(' '));
const timePrefix = (key: string) => /^(.+?)(?:At|Time|Date|Timestamp|_at|_time|_date|_timestamp)$/.exec(key)?.[1]?.toLowerCase();
/** A time the caller asks for: any time for a bare "at" / "time" …, the making time for "createdAt", "sent_at" …. */
const asksWhen = (key: string) => /^(?:at|time|date|datetime|timestamp|when)$/i.test(key) || MAKING.has(timePrefix(key) ?? '');
const whenField = (key: string, field: string) =>
  /At$/.test(field) && (/^(?:at|time|date|datetime|timestamp|when)$/i.test(key) || MAKING.has(timePrefix(field) ?? ''));
const asksId = (key: string) => /^(?:id|key|identifier)$/.test(norm(key));
const asksUrl = (key: string) => /^(?:url|link|href|permalink|uri)$/.test(norm(key));

/** Whether a value can answer a leaf of this type without inventing anything. */
function fits(value: unknown, leaf: LeafSpec | null): boolean {
  if (!leaf || value === null || value === undefined) return true;
  switch (leaf.type) {
    case 'boolean':
      return typeof value === 'boolean';
    case 'number':
    case 'integer':
      return typeof value === 'number' || (typeof value === 'string' && parseCount(value) !== null);
    case 'date':
    case 'datetime':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value));
    case 'url':
      return typeof value === 'string' && /^https?:\/\//.test(value);
    default:
      return typeof value === 'string' || typeof value === 'number';
  }
}

/**
 * The field that answers `key`: by name and alias first, then by the common meanings, then by what the key and its
 * description say against what the playbook declares (result-words.ts); only one whose value fits the leaf.
 */
function fieldFor(
  key: string,
  leaf: LeafSpec | null,
  fields: Record<string, unknown>,
  lookup: Map<string, string>,
  meanings?: Readonly<Record<string, unknown>>,
): string | undefined {
  const named = lookup.get(norm(key));
  if (named && fits(fields[named], leaf)) return named;
  const names = Object.keys(fields);
  const first = (test: (field: string) => boolean) => names.find((f) => test(f) && fits(fields[f], leaf));
  if (leaf?.type === 'boolean' && asksWhether(key)) return first((f) => asksWhether(f) && typeof fields[f] === 'boolean');
  if (asksWhen(key)) return first((f) => whenField(key, f));
  if (asksId(key)) return first((f) => /(?:Id|^id|^number)$/.test(f));
  if (asksUrl(key)) return first((f) => /(?:Url|^url)$/.test(f));
  if (!leaf) return undefined;
  const candidates = names.filter((f) => fields[f] !== undefined && fits(fields[f], leaf) && !isStructured(fields[f]));
  return fieldByMeaning(key, leaf.description, describedFields(candidates, meanings));
}

const isStructured = (v: unknown) => typeof v === 'object' && v !== null;

export function shapeToFormat(
  fields: Record<string, unknown>,
  format: Record<string, unknown>,
  aliases: FieldAliases = {},
  path = '',
  opts: ShapeOptions = {},
): Record<string, unknown> {
  const lookup = new Map<string, string>();
  for (const field of Object.keys(fields)) {
    lookup.set(norm(field), field);
    for (const alias of aliases[field] ?? []) if (!lookup.has(norm(alias))) lookup.set(norm(alias), field);
  }
  const out: Record<string, unknown> = {};
  for (const [key, node] of Object.entries(format)) {
    const where = path ? `${path}.${key}` : key;
    if (node && typeof node === 'object' && !Array.isArray(node)) {
      out[key] = shapeToFormat(fields, node as Record<string, unknown>, aliases, where, opts);
      continue;
    }
    const leaf = typeof node === 'string' ? parseLeaf(node) : null;
    const spec = leaf && !('error' in leaf) ? leaf : null;
    const field = typeof node === 'string' ? fieldFor(key, spec, fields, lookup, opts.fieldMeanings) : undefined;
    if (!field) {
      const why =
        typeof node !== 'string'
          ? `responseFormat.${where} is a list, which this playbook does not read`
          : `responseFormat.${where} is not something this playbook reads (it reads ${Object.keys(fields).join(', ')})`;
      if (!opts.lenient) throw new PlaybookNotApplicable(why);
      out[key] = Array.isArray(node) ? [] : null;
      opts.lenient.warnings.push({
        code: 'RESULT_FIELD_UNFILLED',
        path: `result.${where}`,
        message: `${why}; left ${Array.isArray(node) ? 'empty' : 'null'}`,
      });
      continue;
    }
    out[key] = convert(fields[field], node as string);
  }
  return out;
}

function convert(value: unknown, leafText: string): unknown {
  const leaf = parseLeaf(leafText);
  if ('error' in leaf || value === null || value === undefined) return value ?? null;
  if (leaf.type === 'string' && typeof value === 'number') return String(value);
  if ((leaf.type === 'number' || leaf.type === 'integer') && typeof value === 'string') {
    const n = parseCount(value);
    return n ?? value;
  }
  return value;
}

/** The format with every leaf null and every list empty: what a write whose read-back failed can still say. */
export function emptyResult(format: Record<string, unknown>, path = '', warnings: ShapeWarning[] = [], why = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, node] of Object.entries(format)) {
    const where = path ? `${path}.${key}` : key;
    if (node && typeof node === 'object' && !Array.isArray(node)) {
      out[key] = emptyResult(node as Record<string, unknown>, where, warnings, why);
      continue;
    }
    out[key] = Array.isArray(node) ? [] : null;
    warnings.push({
      code: 'RESULT_FIELD_UNFILLED',
      path: `result.${where}`,
      message: `${why}; left ${Array.isArray(node) ? 'empty' : 'null'}`,
    });
  }
  return out;
}

/** "1,234 followers" → 1234, "12.5K" → 12500; null when the text holds no number. */
export function parseCount(text: string): number | null {
  const m = /(-?\d[\d,]*(?:\.\d+)?)\s*([kmb])?/i.exec(text);
  if (!m) return null;
  const n = Number(m[1].replace(/,/g, ''));
  const scale = { k: 1e3, m: 1e6, b: 1e9 }[(m[2] ?? '').toLowerCase() as 'k' | 'm' | 'b'] ?? 1;
  return Number.isFinite(n) ? Math.round(n * scale) : null;
}
