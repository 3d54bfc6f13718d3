import { explainNothingRan } from '../../server/agent/worker/nothing-ran';
import { builtInCatalogue, builtInPlaybooks } from '../support/integrations';

/**
 * The error of a request nothing ran, built from what the router found (no browser): it never claims that
 * nothing matched when a playbook did, names the parameter a matched playbook lacked, lists the closest
 * actions with their scores otherwise, and always says how to configure a model.
 */
const registry = builtInPlaybooks();
const orbit = builtInCatalogue('http://localhost:3000').bySlug('orbit', 'sandbox')!;

async function explain(action: string, extra: { parameters?: Record<string, unknown>; mode?: 'read' | 'read_write' } = {}) {
  const route = await registry.route({
    action,
    provider: orbit,
    parameters: extra.parameters ?? {},
    signal: new AbortController().signal,
    by: 'text',
    ...(extra.mode ? { mode: extra.mode } : {}),
  });
  if (route.playbook) throw new Error(`${action} routed to ${route.playbook.name}`);
  return explainNothingRan({
    skipped: [
      { method: 'PLAYBOOK', reason: route.reason, details: route.problem },
      { method: 'REPLAY', reason: 'no trajectory recorded for this action' },
    ],
    provider: orbit,
  });
}

describe('why nothing ran', () => {
  it('names the playbook that matched and the parameter it lacked (PLAYBOOK_PARAMETERS_MISSING)', async () => {
    const error = await explain('Send a message to Priya Nair');
    expect(error).toMatchObject({
      code: 'PLAYBOOK_PARAMETERS_MISSING',
      details: {
        playbook: 'orbit.send-message',
        missing: ['parameters.text'],
        issues: [{ path: 'parameters.text', message: 'Required' }],
        catalogue: `/api/providers/${orbit.providerId}/actions`,
        model: { configure: ['AGENTLINK_MODEL_BASE_URL', 'AGENTLINK_MODEL', 'AGENTLINK_MODEL_API_KEY'] },
      },
    });
    expect(error.message).toMatch(/^The action matches orbit\.send-message \(score 1\.00\), but it needs parameters\.text, which neither/);
    expect(error.message).toMatch(/AGENTLINK_MODEL_BASE_URL/);
    expect(error.message).not.toMatch(/no playbook|nothing matched/i);
  });

  it('names a value read from the action that does not fit (PLAYBOOK_PARAMETERS_INVALID)', async () => {
    const error = await explain('Read the 80 latest posts in my feed');
    expect(error).toMatchObject({
      code: 'PLAYBOOK_PARAMETERS_INVALID',
      details: { playbook: 'orbit.read-my-feed', issues: [{ path: 'parameters.limit', source: 'action', value: 80 }] },
    });
  });

  it('says that the playbook that matches writes, for a read-only request', async () => {
    const error = await explain("Create a post saying 'hi'", { mode: 'read' });
    expect(error.code).toBe('MODEL_NOT_CONFIGURED');
    expect(error.message).toMatch(/^The action matches orbit\.create-post, which changes things .* mode read/);
    expect(error.details).toMatchObject({ playbook: 'orbit.create-post' });
  });

  it('lists the closest actions with their scores and the threshold they missed when none matched', async () => {
    const error = await explain('Share a photo album with my network');
    expect(error.code).toBe('MODEL_NOT_CONFIGURED');
    expect(error.message).toMatch(
      /^Nothing ran: no action of Orbit \(sandbox social network\) matches it closely enough \(closest: orbit\.repost-post 0\.\d\d.*; a playbook needs 0\.65\)/,
    );
    expect(error.details).toMatchObject({
      closest: expect.arrayContaining([{ name: 'orbit.repost-post', score: expect.any(Number), example: expect.any(String) }]),
      threshold: 0.65,
      skipped: [{ method: 'PLAYBOOK' }, { method: 'REPLAY', reason: 'no trajectory recorded for this action' }],
    });
  });

  it('says a matched playbook could not serve the request when its run refused it', () => {
    const error = explainNothingRan({
      skipped: [{ method: 'PLAYBOOK', reason: 'orbit.read-my-profile: responseFormat.posts is a list this playbook does not read' }],
      provider: orbit,
    });
    expect(error.code).toBe('MODEL_NOT_CONFIGURED');
    expect(error.message).toMatch(
      /^A playbook matches the action but cannot serve this request \(orbit\.read-my-profile: responseFormat\.posts/,
    );
  });
});
