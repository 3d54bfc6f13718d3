/**
 * The responseFormat grammar: a template of the JSON the caller wants back.
 *
 *   template := { key: node, ... }            (1..MAX_KEYS_PER_OBJECT keys)
 *   node     := leaf | [ template | leaf ] | template
 *   leaf     := "<type>" | "<type> - <description>"   (type may end in "?" = may be null)
 *   type     := string | number | integer | boolean | date | datetime | url | email
 *
 * The template is checked here with errors that name the exact path of the bad node, and compiled
 * to JSON Schema (for the model and for validating its answer). Pure: no imports of server code.
 */

export const RESPONSE_FORMAT_LIMITS = {
  maxDepth: 8,
  maxKeysTotal: 200,
  maxKeysPerObject: 50,
  maxKeyLength: 100,
  maxLeafLength: 500,
  maxSerializedBytes: 16 * 1024,
} as const;

export const LEAF_TYPES = ['string', 'number', 'integer', 'boolean', 'date', 'datetime', 'url', 'email'] as const;
export type LeafType = (typeof LEAF_TYPES)[number];

export interface LeafSpec {
  type: LeafType;
  nullable: boolean;
  description?: string;
}

export interface FormatIssue {
  /** Path inside responseFormat, e.g. ["profile", "followers"] or ["posts", 0, "title"]. */
  path: (string | number)[];
  message: string;
}

const KEY_PATTERN = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;
const LEAF_PATTERN = /^\s*([a-z]+)(\?)?\s*(?:-\s*([\s\S]*))?$/;

export function parseLeaf(value: string): LeafSpec | { error: string } {
  const m = LEAF_PATTERN.exec(value);
  if (!m) return { error: `expected "<type>" or "<type> - <description>" with type one of ${LEAF_TYPES.join(', ')}` };
  const type = m[1] as LeafType;
  if (!LEAF_TYPES.includes(type)) {
    return { error: `unknown type "${m[1]}"; expected one of ${LEAF_TYPES.join(', ')}` };
  }
  const description = m[3]?.trim();
  return { type, nullable: m[2] === '?', ...(description ? { description } : {}) };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Checks a template against the grammar and its bounds; returns every issue found (empty = valid). */
export function checkResponseFormat(template: unknown): FormatIssue[] {
  const issues: FormatIssue[] = [];
  if (!isPlainObject(template)) {
    return [{ path: [], message: 'must be an object whose properties are type descriptors, arrays or objects' }];
  }
  let serialized: string;
  try {
    serialized = JSON.stringify(template);
  } catch {
    return [{ path: [], message: 'must be plain JSON' }];
  }
  if (Buffer.byteLength(serialized, 'utf8') > RESPONSE_FORMAT_LIMITS.maxSerializedBytes) {
    return [{ path: [], message: `must be at most ${RESPONSE_FORMAT_LIMITS.maxSerializedBytes} bytes as JSON` }];
  }
  let keysTotal = 0;

  const visitObject = (obj: Record<string, unknown>, path: (string | number)[], depth: number) => {
    const keys = Object.keys(obj);
    if (keys.length === 0) issues.push({ path, message: 'must have at least one property' });
    if (keys.length > RESPONSE_FORMAT_LIMITS.maxKeysPerObject) {
      issues.push({ path, message: `must have at most ${RESPONSE_FORMAT_LIMITS.maxKeysPerObject} properties` });
      return;
    }
    for (const key of keys) {
      keysTotal += 1;
      if (keysTotal > RESPONSE_FORMAT_LIMITS.maxKeysTotal) {
        issues.push({ path: [...path, key], message: `template has more than ${RESPONSE_FORMAT_LIMITS.maxKeysTotal} properties in all` });
        return;
      }
      if (key.length > RESPONSE_FORMAT_LIMITS.maxKeyLength || !KEY_PATTERN.test(key)) {
        issues.push({
          path: [...path, key],
          message: `property name must match ${KEY_PATTERN} and be at most ${RESPONSE_FORMAT_LIMITS.maxKeyLength} characters`,
        });
        continue;
      }
      visitNode(obj[key], [...path, key], depth);
    }
  };

  const visitNode = (node: unknown, path: (string | number)[], depth: number) => {
    if (depth > RESPONSE_FORMAT_LIMITS.maxDepth) {
      issues.push({ path, message: `nesting deeper than ${RESPONSE_FORMAT_LIMITS.maxDepth} levels` });
      return;
    }
    if (typeof node === 'string') {
      if (node.length > RESPONSE_FORMAT_LIMITS.maxLeafLength) {
        issues.push({ path, message: `descriptor must be at most ${RESPONSE_FORMAT_LIMITS.maxLeafLength} characters` });
        return;
      }
      const leaf = parseLeaf(node);
      if ('error' in leaf) issues.push({ path, message: leaf.error });
      return;
    }
    if (Array.isArray(node)) {
      if (node.length !== 1) {
        issues.push({ path, message: 'an array must hold exactly one template element' });
        return;
      }
      visitNode(node[0], [...path, 0], depth + 1);
      return;
    }
    if (isPlainObject(node)) {
      visitObject(node, path, depth + 1);
      return;
    }
    issues.push({
      path,
      message: `must be a type descriptor string, an array of one template, or an object (got ${node === null ? 'null' : typeof node})`,
    });
  };

  visitObject(template, [], 1);
  return issues;
}

export type JsonSchema = Record<string, unknown>;

const LEAF_SCHEMAS: Record<LeafType, JsonSchema> = {
  string: { type: 'string' },
  number: { type: 'number' },
  integer: { type: 'integer' },
  boolean: { type: 'boolean' },
  date: { type: 'string', format: 'date' },
  datetime: { type: 'string', format: 'date-time' },
  url: { type: 'string', format: 'uri' },
  email: { type: 'string', format: 'email' },
};

/**
 * Compiles a template that passed checkResponseFormat to JSON Schema (draft 2020-12 subset that both
 * ajv and OpenAI-style structured outputs accept): every property required, no extra properties.
 */
export function compileResponseFormat(template: Record<string, unknown>): JsonSchema {
  const compileNode = (node: unknown): JsonSchema => {
    if (typeof node === 'string') {
      const leaf = parseLeaf(node);
      if ('error' in leaf) throw new Error(`invalid leaf: ${leaf.error}`);
      const base = LEAF_SCHEMAS[leaf.type];
      const type = leaf.nullable ? [base.type, 'null'] : base.type;
      return { ...base, type, ...(leaf.description ? { description: leaf.description } : {}) };
    }
    if (Array.isArray(node)) return { type: 'array', items: compileNode(node[0]) };
    return compileObject(node as Record<string, unknown>);
  };
  const compileObject = (obj: Record<string, unknown>): JsonSchema => {
    const properties: Record<string, JsonSchema> = {};
    for (const [k, v] of Object.entries(obj)) properties[k] = compileNode(v);
    return { type: 'object', properties, required: Object.keys(obj), additionalProperties: false };
  };
  return compileObject(template);
}

/** Renders a path the way callers write it: responseFormat.posts[0].title */
export function formatPath(root: string, path: (string | number)[]): string {
  return path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : `${acc}.${p}`), root);
}
