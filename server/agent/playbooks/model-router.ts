import { ChatClient, type ModelConfig } from '../model/chat-client';
import { buildPlaybookRoutingPrompt } from '../planner/prompts';
import type { PlaybookModelRouter } from './registry';

/**
 * Routes an action that no playbook pattern matched through the configured model: one call with a single
 * tool whose `name` is an enum of the provider's playbooks plus "none". Any model failure means "no
 * playbook" — the replay and the planner still get the request, so routing can never fail a run.
 */
export function modelPlaybookRouter(config: ModelConfig, opts: { fetch?: typeof fetch } = {}): PlaybookModelRouter {
  return async ({ action, provider, candidates, signal }) => {
    const client = new ChatClient(config, { retries: 0, ...(opts.fetch ? { fetch: opts.fetch } : {}) });
    try {
      const reply = await client.complete({
        messages: [{ role: 'user', content: buildPlaybookRoutingPrompt({ action, providerName: provider.name, candidates }) }],
        tools: [
          {
            type: 'function',
            function: {
              name: 'choose_playbook',
              description: 'Choose the tested routine that does exactly the requested task, or none.',
              parameters: {
                type: 'object',
                properties: { name: { type: 'string', enum: [...candidates.map((c) => c.name), 'none'] } },
                required: ['name'],
                additionalProperties: false,
              },
            },
          },
        ],
        toolChoice: { type: 'function', function: { name: 'choose_playbook' } },
        signal,
        deadline: Date.now() + Math.min(config.timeoutMs, 15_000),
      });
      const call = reply.message.tool_calls?.find((c) => c.function.name === 'choose_playbook');
      if (!call) return null;
      const name = (JSON.parse(call.function.arguments) as { name?: unknown }).name;
      return typeof name === 'string' && candidates.some((c) => c.name === name) ? name : null;
    } catch {
      return null;
    }
  };
}
