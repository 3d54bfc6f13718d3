import { ERROR_CATALOGUE } from '../contract/error-codes';

/**
 * Writes the types and the operation table of @agentlink/client (client/src/generated/api.ts) from the OpenAPI
 * document, the way Stripe's and Plaid's SDKs are generated from theirs: plain TypeScript, no zod and no ts-rest in
 * the package, so it installs with no dependencies and its .d.ts reads like the API reference.
 *
 * The document is built from the contract, so the chain is contract → openapi.json → client; `npm run openapi` writes
 * both and a test fails when either is stale. The subset of JSON Schema used here is the one the contract produces.
 */
type Schema = Record<string, unknown> & {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  description?: string;
  format?: string;
};

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description?: string;
  schema: Schema;
}

interface Operation {
  operationId: string;
  summary?: string;
  tags: string[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: Schema }> }>;
}

interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; responses: Record<string, { content: Record<string, { schema: Schema }> }> };
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (k: string) => (IDENT.test(k) ? k : JSON.stringify(k));
const literal = (v: unknown) => (typeof v === 'string' ? `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : JSON.stringify(v));
/** `Error` would shadow the global Error class in the package. */
const RENAMED: Record<string, string> = { Error: 'ErrorEnvelope' };
const typeName = (component: string) => RENAMED[component] ?? component;

function comment(text: string | undefined, indent: string): string {
  if (!text) return '';
  return `${indent}/** ${text.replace(/\*\//g, '*\\/').replace(/\s*\n\s*/g, ' ')} */\n`;
}

/** The TypeScript type of a schema, indented for its position. */
export function typeOf(schema: Schema | undefined, indent = ''): string {
  if (!schema || Object.keys(schema).filter((k) => !['description', 'title', 'examples', 'format'].includes(k)).length === 0) {
    return 'unknown';
  }
  if (schema.$ref) return typeName(schema.$ref.split('/').pop()!);
  if (schema.const !== undefined) return literal(schema.const);
  if (schema.anyOf) return union(schema.anyOf.map((s) => typeOf(s, indent)));
  if (schema.oneOf) return union(schema.oneOf.map((s) => typeOf(s, indent)));
  if (schema.allOf) return schema.allOf.map((s) => typeOf(s, indent)).join(' & ');
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (schema.enum) return union(schema.enum.map(literal));
  if (types.length > 1) return union(types.map((t) => typeOf({ ...schema, type: t }, indent)));
  switch (types[0]) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `${wrap(typeOf(schema.items, indent))}[]`;
    case 'object':
    case undefined:
      return objectType(schema, indent);
    default:
      return 'unknown';
  }
}

const union = (parts: string[]) => [...new Set(parts)].join(' | ');
const wrap = (t: string) => (/[|&]/.test(t) ? `(${t})` : t);

function objectType(schema: Schema, indent: string): string {
  const props = schema.properties ?? {};
  const extra = schema.additionalProperties;
  if (Object.keys(props).length === 0) {
    if (extra === false) return 'Record<string, never>';
    return `Record<string, ${extra && typeof extra === 'object' ? typeOf(extra, indent) : 'unknown'}>`;
  }
  const inner = `${indent}  `;
  const required = new Set(schema.required ?? []);
  const lines = Object.entries(props).map(
    ([name, s]) => `${comment(s.description, inner)}${inner}${key(name)}${required.has(name) ? '' : '?'}: ${typeOf(s, inner)};`,
  );
  if (extra === true || (extra && typeof extra === 'object')) {
    lines.push(`${inner}[key: string]: ${extra === true ? 'unknown' : typeOf(extra, inner)};`);
  }
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function paramsType(params: Parameter[], indent: string): string {
  if (params.length === 0) return 'never';
  const inner = `${indent}  `;
  const lines = params.map(
    (p) => `${comment(p.description, inner)}${inner}${key(p.name)}${p.required ? '' : '?'}: ${typeOf(p.schema, inner)};`,
  );
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function jsonSchema(holder: { content?: Record<string, { schema: Schema }> } | undefined): Schema | undefined {
  return holder?.content?.['application/json']?.schema;
}

/** The `code` enum of a (possibly referenced) error response. */
function errorCodes(doc: Doc, response: Operation['responses'][string]): string[] {
  const resolved = response.$ref ? doc.components.responses[response.$ref.split('/').pop()!] : response;
  const schema = jsonSchema(resolved);
  const narrowing = schema?.allOf?.[1] as Schema | undefined;
  return ((narrowing?.properties?.error as Schema | undefined)?.properties?.code?.enum as string[] | undefined) ?? [];
}

export function renderClientTypes(doc: Doc): string {
  const out: string[] = ['// Generated by `npm run openapi` from openapi/openapi.json (itself generated from contract/): do not edit.', ''];
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    const body = typeOf({ ...schema, title: undefined } as Schema);
    // A union of object types (oneOf, anyOf) starts with `{` too, but only a single object type can be an interface.
    const single = body.startsWith('{\n') && !schema.oneOf && !schema.anyOf;
    const declaration = single ? `export interface ${typeName(name)} ${body}` : `export type ${typeName(name)} = ${body};`;
    out.push(comment(schema.description as string | undefined, '') + declaration, '');
  }
  out.push(
    '/** The body of every webhook delivery. */\nexport type WebhookEvent = AgentRequestEvent | ConnectionEvent | LinkSessionEvent;',
    '',
  );

  const groups = new Map<string, { id: string; method: string; path: string; op: Operation }[]>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const group = op.tags[0];
      groups.set(group, [...(groups.get(group) ?? []), { id: op.operationId, method: method.toUpperCase(), path, op }]);
    }
  }

  out.push('/** Every operation: its method and path template (path parameters in braces). */');
  out.push('export const OPERATIONS = {');
  for (const [group, ops] of groups) {
    out.push(`  ${key(group)}: {`);
    for (const o of ops) {
      // A list answers { data, nextCursor } and takes a cursor: the client pages through it.
      const response = jsonSchema(Object.entries(o.op.responses).find(([s]) => s.startsWith('2'))?.[1]);
      const resolved = response?.$ref ? doc.components.schemas[response.$ref.split('/').pop()!] : response;
      const paginated = Boolean(resolved?.properties?.nextCursor && o.op.parameters?.some((p) => p.in === 'query' && p.name === 'cursor'));
      out.push(`    ${key(o.id)}: { method: ${literal(o.method)}, path: ${literal(o.path)}${paginated ? ', paginated: true' : ''} },`);
    }
    out.push('  },');
  }
  out.push('} as const;', '');

  out.push('/** What each operation takes and answers: path parameters, query, body, the success body, and its error codes. */');
  out.push('export interface Operations {');
  for (const [group, ops] of groups) {
    out.push(`  ${key(group)}: {`);
    for (const { id, op } of ops) {
      const params = op.parameters ?? [];
      const success = Object.entries(op.responses).find(([s]) => s.startsWith('2'));
      const codes = [
        ...new Set(
          Object.entries(op.responses)
            .filter(([s]) => Number(s) >= 400)
            .flatMap(([, r]) => errorCodes(doc, r)),
        ),
      ];
      const ordered = Object.keys(ERROR_CATALOGUE).filter((c) => codes.includes(c));
      const i = '      ';
      out.push(comment(op.summary, '    ') + `    ${key(id)}: {`);
      out.push(
        `${i}params: ${paramsType(
          params.filter((p) => p.in === 'path'),
          i,
        )};`,
      );
      out.push(
        `${i}query: ${paramsType(
          params.filter((p) => p.in === 'query'),
          i,
        )};`,
      );
      out.push(`${i}body: ${op.requestBody ? typeOf(jsonSchema(op.requestBody), i) : 'never'};`);
      out.push(`${i}response: ${typeOf(jsonSchema(success?.[1]), i)};`);
      out.push(`${i}errorCode: ${ordered.length ? ordered.map(literal).join(' | ') : 'never'};`);
      out.push('    };');
    }
    out.push('  };');
  }
  out.push('}', '');
  return out.join('\n');
}
