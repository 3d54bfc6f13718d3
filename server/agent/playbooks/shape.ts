import { parseLeaf } from '../../../contract/response-format';
import { PlaybookNotApplicable } from './errors';

/**
 * Fits what a playbook read to the caller's responseFormat. Each property of the format is looked up among
 * the playbook's fields by its normalised name (case, '_' and '-' ignored) and the field's aliases; nested
 * objects are fitted the same way. A property the playbook cannot fill makes the playbook not applicable,
 * so the next way (replay, planner) gets the request. Values are converted only where it is lossless
 * (a number for a "string" leaf, "1,234" for a "number" leaf).
 */
export type FieldAliases = Record<string, string[]>;

const norm = (key: string) => key.toLowerCase().replace(/[_\-\s]/g, '');

export function shapeToFormat(
  fields: Record<string, unknown>,
  format: Record<string, unknown>,
  aliases: FieldAliases = {},
  path = '',
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
      out[key] = shapeToFormat(fields, node as Record<string, unknown>, aliases, where);
      continue;
    }
    if (typeof node !== 'string') throw new PlaybookNotApplicable(`responseFormat.${where} is a list, which this playbook does not read`);
    const field = lookup.get(norm(key));
    if (!field)
      throw new PlaybookNotApplicable(
        `responseFormat.${where} is not something this playbook reads (it reads ${Object.keys(fields).join(', ')})`,
      );
    out[key] = convert(fields[field], node);
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

/** "1,234 followers" → 1234, "12.5K" → 12500; null when the text holds no number. */
export function parseCount(text: string): number | null {
  const m = /(-?\d[\d,]*(?:\.\d+)?)\s*([kmb])?/i.exec(text);
  if (!m) return null;
  const n = Number(m[1].replace(/,/g, ''));
  const scale = { k: 1e3, m: 1e6, b: 1e9 }[(m[2] ?? '').toLowerCase() as 'k' | 'm' | 'b'] ?? 1;
  return Number.isFinite(n) ? Math.round(n * scale) : null;
}
