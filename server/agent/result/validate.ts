import { createHash } from 'node:crypto';

import type AjvClass from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type AddFormats from 'ajv-formats';

import type { JsonSchema } from '../../../contract/response-format';

/**
 * Checks an agent's final answer against the JSON Schema compiled from responseFormat (ajv + formats).
 * Compiled validators are cached by a hash of the schema, so a schema is compiled once per process.
 */
export interface ResultIssue {
  /** JSON Pointer inside the result ("" = the result itself, "/followers", "/posts/0/title"). */
  path: string;
  message: string;
}

export type ResultCheck = { valid: true } | { valid: false; errors: ResultIssue[] };

let ajvInstance: AjvClass | null = null;

/** Built at the first result checked: Ajv and its formats take about 0.1 s to load, which every process paid at start. */
function ajv(): AjvClass {
  if (!ajvInstance) {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const Ajv = (require('ajv') as { default: typeof AjvClass }).default;
    const addFormats = (require('ajv-formats') as { default: typeof AddFormats }).default;
    /* eslint-enable @typescript-eslint/no-require-imports */
    ajvInstance = new Ajv({ allErrors: true, strict: false });
    addFormats(ajvInstance);
  }
  return ajvInstance;
}

const MAX_CACHED = 500;
const cache = new Map<string, ValidateFunction>();

export function schemaHash(schema: JsonSchema): string {
  return createHash('sha256').update(stableStringify(schema)).digest('hex');
}

function compiled(schema: JsonSchema): ValidateFunction {
  const key = schemaHash(schema);
  let fn = cache.get(key);
  if (!fn) {
    fn = ajv().compile(schema);
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
    cache.set(key, fn);
  }
  return fn;
}

function describe(e: ErrorObject): ResultIssue {
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'additionalProperties') {
    return { path: `${e.instancePath}/${String(params.additionalProperty)}`, message: 'is not a property of the response format' };
  }
  if (e.keyword === 'required') {
    return { path: `${e.instancePath}/${String(params.missingProperty)}`, message: 'is required' };
  }
  return { path: e.instancePath, message: e.message ?? e.keyword };
}

export function validateResult(schema: JsonSchema, value: unknown): ResultCheck {
  const fn = compiled(schema);
  if (fn(value)) return { valid: true };
  return { valid: false, errors: (fn.errors ?? []).slice(0, 50).map(describe) };
}

/** JSON with object keys sorted, so equal schemas hash equally whatever their key order. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as Record<string, unknown>)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableStringify((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
