import fs from 'node:fs';

import type * as Yaml from 'yaml';

import { ConfigError } from '../config';
import { checkProviderDeclaration } from './declaration';
import { compileDeclaration } from './declaration';
import type { ProviderDefinition } from './provider';

export const PROVIDERS_FILE_LIMITS = { maxBytes: 1024 * 1024, maxProviders: 200 } as const;

/**
 * The operator's providers (AGENTLINK_PROVIDERS_FILE): JSON, or YAML for a .yaml/.yml file, holding
 * `{ "providers": [declaration, …] }` (or the list itself). Each declaration is checked like an organization's, and
 * also needs its providerId (connections keep it across restarts) and environment. Read once at start-up: anything
 * wrong stops the start with the file and the path of the bad field, never a half-loaded catalogue.
 */
/** The YAML parser, loaded only for a .yaml/.yml file (about 70 ms of module loading that a JSON file, or none, never needs). */
function parseYaml(text: string): unknown {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('yaml') as typeof Yaml).parse(text, { maxAliasCount: 0 });
}

export function loadProvidersFile(file: string, builtIns: readonly ProviderDefinition[]): ProviderDefinition[] {
  const refuse = (where: string, message: string) => new ConfigError(`AGENTLINK_PROVIDERS_FILE ${file}: ${where}: ${message}`);
  let text: string;
  try {
    if (fs.statSync(file).size > PROVIDERS_FILE_LIMITS.maxBytes)
      throw refuse('(file)', `larger than ${PROVIDERS_FILE_LIMITS.maxBytes} bytes`);
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw refuse('(file)', `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let doc: unknown;
  try {
    doc = /\.ya?ml$/i.test(file) ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw refuse('(file)', `is not valid ${/\.ya?ml$/i.test(file) ? 'YAML' : 'JSON'} (${(err as Error).message.split('\n')[0]})`);
  }
  const list = Array.isArray(doc) ? doc : (doc as { providers?: unknown } | null)?.providers;
  const prefix = Array.isArray(doc) ? '' : 'providers';
  if (!Array.isArray(list)) throw refuse('providers', 'must be a list of provider declarations');
  if (list.length > PROVIDERS_FILE_LIMITS.maxProviders)
    throw refuse('providers', `at most ${PROVIDERS_FILE_LIMITS.maxProviders} providers`);
  const loaded: ProviderDefinition[] = [];
  list.forEach((entry, i) => {
    const at = (path: string) => `${prefix}[${i}]${path.startsWith('[') ? '' : '.'}${path}`;
    const e = (entry ?? {}) as { providerId?: unknown; environment?: unknown };
    if (typeof e.providerId !== 'string') throw refuse(at('providerId'), 'is required in the providers file (a UUID)');
    if (e.environment !== 'sandbox' && e.environment !== 'production') throw refuse(at('environment'), 'must be sandbox or production');
    const checked = checkProviderDeclaration(entry, e.environment);
    if (!checked.ok) throw refuse(at(checked.issues[0].path), checked.issues[0].message);
    const clash = [...builtIns, ...loaded].find(
      (p) => p.environment === e.environment && (p.providerId === e.providerId || p.slug === checked.declaration.slug),
    );
    if (clash) throw refuse(at(clash.providerId === e.providerId ? 'providerId' : 'slug'), `is already used by provider ${clash.slug}`);
    loaded.push(compileDeclaration(checked.declaration, { providerId: e.providerId, environment: e.environment, source: 'operator' }));
  });
  return loaded;
}
