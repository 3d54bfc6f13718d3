import { generateSchema, type OpenApiZodAny } from '@anatine/zod-openapi';

import type { ProviderAction } from '../../../contract/schemas';
import { PARAM_ALIASES } from './fill-parameters';
import type { Playbook, PlaybookRegistry } from './registry';
import type { SentenceSlot } from './sentence-values';

/**
 * A playbook as the action catalogue shows it (GET /api/providers/{providerId}/actions and the dashboard): its
 * parameters as JSON Schema generated from its zod schema (@anatine/zod-openapi, the generator the contract's
 * OpenAPI document uses, so both speak the same dialect), each property annotated with the other names it
 * accepts (`x-aliases`) and how it may be written in the action (`x-from-action`).
 */
const HOW_WRITTEN: Record<SentenceSlot, string> = {
  text: 'quoted text ("…" or \'…\'), or what follows "saying"',
  name: '"called <name>", "named <name>", "titled <name>"',
  person: '"to <person>" or "with <person>": an @handle, a user name or a Capitalised Name',
  repository: 'an owner/name anywhere in the action',
  number: '"#12", "issue 12"',
  count: '"last 5", "first 3", "the 10 latest posts"',
};

export function describePlaybook(playbook: Playbook<unknown>): ProviderAction {
  const schema = generateSchema(playbook.parameters as unknown as OpenApiZodAny) as Record<string, unknown>;
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const aliases = (playbook.parameters as { [PARAM_ALIASES]?: Record<string, string[]> })[PARAM_ALIASES] ?? {};
  for (const [name, property] of Object.entries(properties)) {
    if (aliases[name]?.length) property['x-aliases'] = [...aliases[name]];
    const slots = playbook.fromSentence?.[name];
    if (slots) {
      const order: readonly SentenceSlot[] = typeof slots === 'string' ? [slots] : slots;
      property['x-from-action'] = order.map((s) => HOW_WRITTEN[s]).join('; or ');
    }
  }
  return {
    name: playbook.name,
    description: playbook.description,
    examples: [...playbook.examples],
    parameters: schema,
    writes: playbook.writes,
    resultFields: structuredClone(playbook.resultFields) as Record<string, unknown>,
  };
}

/** A provider's actions as the catalogue shows them (the ProviderActions the domain's ProviderActionService takes). */
export function providerActions(registry: Pick<PlaybookRegistry, 'list'>): { list(providerSlug: string): ProviderAction[] } {
  return { list: (providerSlug) => registry.list(providerSlug).map(describePlaybook) };
}
