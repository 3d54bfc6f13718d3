import { PlaybookNotApplicable } from './errors';
import { fieldByMeaning } from './result-words';
import { describedFields, type FieldAliases, type ShapeOptions, shapeToFormat } from './shape';

/**
 * Fits what a list-reading playbook read (feed posts, repositories …) to the caller's responseFormat.
 *
 * The format must hold a list somewhere (`{ posts: [{ author: "string", text: "string" }] }`, or nested:
 * `{ feed: { items: [ … ] } }`); every list in it is filled with the items, each item fitted to the list's one
 * template element by shapeToFormat (same normalised names and aliases). A list of plain leaves
 * (`{ titles: ["string"] }`) takes one field of every item, found by its name or its singular. Keys outside
 * lists are filled from `extras` (e.g. count). Anything the playbook cannot fill makes it not applicable,
 * like shapeToFormat.
 */
export interface ListRead {
  items: Record<string, unknown>[];
  itemAliases?: FieldAliases;
  /** Values about the whole list (count, hasMore …), for keys of the format outside its lists. */
  extras?: Record<string, unknown>;
  extraAliases?: FieldAliases;
}

const norm = (key: string) => key.toLowerCase().replace(/[_\-\s]/g, '');
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function holdsList(node: unknown): boolean {
  if (Array.isArray(node)) return true;
  return isObject(node) && Object.values(node).some(holdsList);
}

/**
 * The item field a key names (by its normalised name or an alias), trying the singular of a plural key too, else
 * the one its words mean among the list-valued fields (`tags` → `labels`, result-words.ts).
 */
function fieldFor(
  key: string,
  fields: string[],
  aliases: FieldAliases,
  meanings?: Readonly<Record<string, unknown>>,
  values?: Record<string, unknown>,
): string | undefined {
  const lookup = new Map<string, string>();
  for (const field of fields) {
    lookup.set(norm(field), field);
    for (const alias of aliases[field] ?? []) if (!lookup.has(norm(alias))) lookup.set(norm(alias), field);
  }
  const k = norm(key);
  const candidates = [k, k.replace(/ies$/, 'y'), k.replace(/es$/, ''), k.replace(/s$/, '')];
  for (const c of candidates) {
    const f = lookup.get(c);
    if (f) return f;
  }
  if (!values) return undefined;
  const lists = fields.filter((f) => Array.isArray(values[f]));
  return fieldByMeaning(key, undefined, describedFields(lists, meanings));
}

/** What the playbook declares about the items of its list (the element of the first list in its resultFields). */
function itemMeanings(meanings: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> | undefined {
  const list = Object.values(meanings ?? {}).find((v) => Array.isArray(v) && isObject(v[0])) as unknown[] | undefined;
  return list ? (list[0] as Record<string, unknown>) : undefined;
}

/** One leaf value converted like shapeToFormat converts it ("1,234" → 1234 for a number leaf …). */
function convertLeaf(value: unknown, leaf: string): unknown {
  return shapeToFormat({ v: value }, { v: leaf }).v;
}

/** One item fitted to the list's template element; list-valued item fields may fill `["string"]` leaves. */
export function shapeItem(
  item: Record<string, unknown>,
  template: Record<string, unknown>,
  aliases: FieldAliases,
  where: string,
  opts: ShapeOptions = {},
): Record<string, unknown> {
  const plain: Record<string, unknown> = {};
  for (const [key, node] of Object.entries(template)) if (!Array.isArray(node)) plain[key] = node;
  const shaped = Object.keys(plain).length ? shapeToFormat(item, plain, aliases, where, opts) : {};
  const out: Record<string, unknown> = {};
  for (const [key, node] of Object.entries(template)) {
    if (!Array.isArray(node)) {
      out[key] = shaped[key];
      continue;
    }
    const element = node[0];
    const field = fieldFor(key, Object.keys(item), aliases, opts.fieldMeanings, item);
    const value = field === undefined ? undefined : item[field];
    if (typeof element !== 'string' || !Array.isArray(value)) {
      throw new PlaybookNotApplicable(`responseFormat.${where}.${key} is a list this playbook does not read`);
    }
    out[key] = value.map((v) => convertLeaf(v, element));
  }
  return out;
}

export function shapeListToFormat(
  read: ListRead,
  format: Record<string, unknown>,
  path = '',
  opts: ShapeOptions = {},
): Record<string, unknown> {
  if (!path && !holdsList(format)) {
    throw new PlaybookNotApplicable(`this playbook reads a list (${read.items.length} items); responseFormat has no list to put them in`);
  }
  const aliases = read.itemAliases ?? {};
  const extras = read.extras ?? {};
  const itemOpts: ShapeOptions = { ...opts, fieldMeanings: itemMeanings(opts.fieldMeanings) };
  const out: Record<string, unknown> = {};
  for (const [key, node] of Object.entries(format)) {
    const where = path ? `${path}.${key}` : key;
    if (Array.isArray(node)) {
      const element = node[0];
      if (isObject(element)) {
        out[key] = read.items.map((item, i) => shapeItem(item, element, aliases, `${where}[${i}]`, itemOpts));
      } else if (typeof element === 'string') {
        const fields = read.items.length ? Object.keys(read.items[0]!) : [];
        const field = fieldFor(key, fields, aliases);
        if (!field && read.items.length)
          throw new PlaybookNotApplicable(`responseFormat.${where} names no field this playbook reads (it reads ${fields.join(', ')})`);
        out[key] = field ? read.items.map((item) => convertLeaf(item[field], element)) : [];
      } else {
        throw new PlaybookNotApplicable(`responseFormat.${where} is a list of lists, which this playbook does not read`);
      }
    } else if (isObject(node) && holdsList(node)) {
      out[key] = shapeListToFormat(read, node, where, opts);
    } else {
      out[key] = shapeToFormat(extras, { [key]: node }, read.extraAliases ?? {}, path, opts)[key];
    }
  }
  return out;
}
