import { z } from 'zod';

import { definePlaybook } from '../../server/agent/playbooks/define-playbook';
import { fillParameters } from '../../server/agent/playbooks/fill-parameters';
import type { Playbook } from '../../server/agent/playbooks/registry';
import { listLimit, withParamAliases } from '../../server/agent/playbooks/site-helpers';

/**
 * definePlaybook: `ctx.params` is typed from the schema (its output), also when withParamAliases wraps it and fields
 * coerce, so no playbook casts its parameters. The type checks are compile-time (`npm run typecheck` covers test/).
 */
const aliased = definePlaybook({
  providerSlug: 'example',
  name: 'example.send',
  description: 'Sends a message.',
  examples: ['Send "hi" to Ada'],
  writes: true,
  fromSentence: { text: 'text', recipient: 'person' },
  resultFields: { sent: 'boolean' },
  parameters: withParamAliases(
    { text: ['message', 'body'] },
    z.object({ text: z.string().min(1), recipient: z.string(), limit: listLimit(10).default(5) }).strict(),
  ),
  async run(ctx) {
    const text: string = ctx.params.text;
    const limit: number = ctx.params.limit;
    // @ts-expect-error -- not a parameter of this playbook
    void ctx.params.subject;
    return { sent: text.length > 0 && limit > 0 };
  },
});

describe('definePlaybook', () => {
  it('keeps the declaration as it is, and a defined playbook is one of the registry’s playbooks', () => {
    const all: Playbook<unknown>[] = [aliased];
    expect(all[0]).toBe(aliased);
    expect(aliased.name).toBe('example.send');
  });

  it('parses the parameters through the wrapped schema: aliases, coercion and defaults', () => {
    const filled = fillParameters(aliased, { parameters: { message: 'hello', recipient: 'Ada', limit: '3' }, action: 'Send it' });
    expect(filled).toMatchObject({ ok: true, params: { text: 'hello', recipient: 'Ada', limit: 3 } });
    const defaulted = fillParameters(aliased, { parameters: { text: 'hello', recipient: 'Ada' }, action: 'Send it' });
    expect(defaulted).toMatchObject({ ok: true, params: { limit: 5 } });
  });
});
