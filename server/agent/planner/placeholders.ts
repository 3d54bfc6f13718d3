import type { Placeholder } from '../observation';

/**
 * String parameters reach the model only as placeholders ("{{parameters.text}}"), never as values; a tool fills
 * the value in when it executes (Stagehand's variables). Numbers and booleans are shown as values. The same placeholders make an action template:
 * the action text with parameter values replaced, which keys the replay cache.
 */
export interface ParameterSlot {
  /** Dotted path inside parameters: "text", "address.city". */
  name: string;
  placeholder: string;
  value: string;
  kind: 'string' | 'number' | 'boolean';
}

const MAX_SLOTS = 100;
const PLACEHOLDER = /\{\{\s*parameters\.([A-Za-z0-9_$.-]+)\s*\}\}/g;

export const placeholderFor = (name: string) => `{{parameters.${name}}}`;

/** The scalar leaves of the parameters, each with its placeholder (arrays are addressed by index: "tags.0"). */
export function parameterSlots(parameters: Record<string, unknown>): ParameterSlot[] {
  const out: ParameterSlot[] = [];
  const visit = (v: unknown, path: string[]) => {
    if (out.length >= MAX_SLOTS) return;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
      const name = path.join('.');
      out.push({ name, placeholder: placeholderFor(name), value: String(v), kind: typeof v as ParameterSlot['kind'] });
    } else if (Array.isArray(v)) v.forEach((x, i) => visit(x, [...path, String(i)]));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) visit(x, [...path, k]);
  };
  visit(parameters, []);
  return out;
}

/** Placeholders for redacting observations: string values only (numbers and booleans would hit unrelated text). */
export function observationPlaceholders(slots: ParameterSlot[]): Placeholder[] {
  return slots.filter((s) => s.kind === 'string').map((s) => ({ value: s.value, placeholder: s.placeholder }));
}

export class UnknownPlaceholderError extends Error {}

/** Fills every {{parameters.x}} in a string; an unknown name is an error the model is told about. */
export function fillPlaceholders(template: string, slots: ParameterSlot[]): string {
  return template.replace(PLACEHOLDER, (_m, name: string) => {
    const slot = slots.find((s) => s.name === name);
    if (!slot) {
      const known = slots.map((s) => s.placeholder).join(', ') || 'none';
      throw new UnknownPlaceholderError(`unknown parameter "${name}" (the parameters are: ${known})`);
    }
    return slot.value;
  });
}

/** The parameter names a template uses, each once. */
export function placeholderNames(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}

/** The parameter name when the whole template is one placeholder ("{{parameters.url}}"), else null. */
export function solePlaceholder(template: string): string | null {
  return /^\s*\{\{\s*parameters\.([A-Za-z0-9_$.-]+)\s*\}\}\s*$/.exec(template)?.[1] ?? null;
}

export function hasPlaceholder(s: string): boolean {
  PLACEHOLDER.lastIndex = 0;
  const found = PLACEHOLDER.test(s);
  PLACEHOLDER.lastIndex = 0;
  return found;
}

/**
 * Fills placeholders in every string of a JSON value. A string that is exactly one placeholder of a number
 * or boolean parameter becomes that number or boolean.
 */
export function fillDeep(value: unknown, slots: ParameterSlot[]): unknown {
  if (typeof value === 'string') {
    const exact = /^\{\{\s*parameters\.([A-Za-z0-9_$.-]+)\s*\}\}$/.exec(value);
    const slot = exact ? slots.find((s) => s.name === exact[1]) : undefined;
    if (slot && slot.kind === 'number') return Number(slot.value);
    if (slot && slot.kind === 'boolean') return slot.value === 'true';
    return fillPlaceholders(value, slots);
  }
  if (Array.isArray(value)) return value.map((v) => fillDeep(v, slots));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillDeep(v, slots)]));
  }
  return value;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Replaces string parameter values that occur in a text (whole words, longest first) by their placeholders.
 * Numbers and booleans stay: they are shown to the model (a count decides how often to act) and so they
 * are part of the replay key as values.
 */
export function templateOf(text: string, slots: ParameterSlot[]): string {
  let out = text;
  const byLength = [...slots]
    .filter((s) => s.kind === 'string' && s.value.trim().length > 0)
    .sort((a, b) => b.value.length - a.value.length);
  for (const s of byLength) {
    const pre = /^[\p{L}\p{N}_]/u.test(s.value) ? '(?<![\\p{L}\\p{N}_])' : '';
    const post = /[\p{L}\p{N}_]$/u.test(s.value) ? '(?![\\p{L}\\p{N}_])' : '';
    out = out.replace(new RegExp(`${pre}${escapeRegExp(s.value)}${post}`, 'gu'), s.placeholder);
  }
  return out;
}

/** The action template that keys the replay cache: placeholders for values, lower case, whitespace collapsed. */
export function normalizedActionTemplate(action: string, slots: ParameterSlot[]): string {
  return templateOf(action, slots).toLowerCase().replace(/\s+/g, ' ').trim();
}
