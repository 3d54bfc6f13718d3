/**
 * ts-rest and @anatine/zod-openapi write OpenAPI 3.0 schemas; the document is OpenAPI 3.1 (full JSON Schema 2020-12,
 * and `webhooks`). This pass rewrites the 3.0-only keywords of every schema in place:
 * - `nullable: true` → `type: [T, 'null']` (and `null` added to an `enum`); around a `$ref`/`allOf` → `anyOf [X, null]`;
 *   on a schema without a type (any JSON value, null included) it is simply dropped;
 * - `example: X` → `examples: [X]`;
 * - boolean `exclusiveMinimum`/`exclusiveMaximum` → the numeric form.
 */
type Schema = Record<string, unknown>;

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

export function upgradeSchema(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  let s: Schema = { ...schema };
  for (const key of ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const) {
    if (Array.isArray(s[key])) s[key] = (s[key] as unknown[]).map(upgradeSchema);
  }
  for (const key of ['items', 'not', 'additionalProperties'] as const) {
    if (isObject(s[key])) s[key] = upgradeSchema(s[key]);
  }
  if (isObject(s.properties)) {
    s.properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, upgradeSchema(v)]));
  }
  if ('example' in s) {
    const { example, ...rest } = s;
    s = { ...rest, examples: [example] };
  }
  for (const [bound, exclusive] of [
    ['minimum', 'exclusiveMinimum'],
    ['maximum', 'exclusiveMaximum'],
  ] as const) {
    if (s[exclusive] === true) {
      s[exclusive] = s[bound];
      delete s[bound];
    } else if (s[exclusive] === false) delete s[exclusive];
  }
  if (s.nullable === true) {
    const { nullable: _nullable, ...rest } = s;
    s = rest;
    if (typeof s.type === 'string') {
      s.type = [s.type, 'null'];
      if (Array.isArray(s.enum)) s.enum = [...(s.enum as unknown[]), null];
    } else if (Array.isArray(s.allOf) && s.allOf.length === 1) {
      const { allOf, ...annotations } = s;
      s = { ...annotations, anyOf: [allOf[0], { type: 'null' }] };
    } else if ('$ref' in s) {
      const { $ref, ...annotations } = s;
      s = { ...annotations, anyOf: [{ $ref }, { type: 'null' }] };
    }
  } else if (s.nullable === false) delete s.nullable;
  return s;
}

interface MediaTypes {
  content?: Record<string, { schema?: unknown }>;
}

/** Every schema of the document: components, parameters, request bodies, responses (of paths and webhooks). */
export function upgradeDocumentSchemas(doc: {
  components?: { schemas?: Record<string, unknown> };
  paths?: Record<string, Record<string, unknown>>;
}): void {
  const schemas = doc.components?.schemas;
  if (schemas) for (const name of Object.keys(schemas)) schemas[name] = upgradeSchema(schemas[name]);
  const upgradeContent = (m: MediaTypes | undefined) => {
    for (const media of Object.values(m?.content ?? {})) if (media.schema) media.schema = upgradeSchema(media.schema);
  };
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item) as {
      parameters?: { schema?: unknown }[];
      requestBody?: MediaTypes;
      responses?: Record<string, MediaTypes>;
    }[]) {
      if (!isObject(op)) continue;
      for (const p of op.parameters ?? []) if (p.schema) p.schema = upgradeSchema(p.schema);
      upgradeContent(op.requestBody);
      for (const r of Object.values(op.responses ?? {})) upgradeContent(r);
    }
  }
}
