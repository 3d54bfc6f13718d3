import { modelPlaybookRouter } from '../../server/agent/playbooks/model-router';
import { builtInCatalogue, builtInPlaybooks } from '../support/integrations';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scripted-model-server';

const orbit = builtInCatalogue('http://localhost:4000').bySlug('orbit', 'sandbox')!;
// Words no example of an Orbit playbook uses: the text search does not route it; a model may.
const UNMATCHED = 'Introduce me to myself as this network knows me';

describe('routing an action to a playbook with the model', () => {
  let model: ScriptedModelServer;
  beforeAll(async () => {
    model = await startScriptedModelServer();
  });
  afterAll(() => model.close());

  const router = () => modelPlaybookRouter({ baseUrl: model.baseUrl, model: 'scripted', timeoutMs: 5000 });
  const registryWithModel = () => {
    const registry = builtInPlaybooks();
    registry.setModelRouter(router());
    return registry;
  };
  const route = (registry = registryWithModel(), action = UNMATCHED) =>
    registry.route({ action, provider: orbit, parameters: {}, signal: new AbortController().signal });

  it('routes an action the text search does not match to the playbook the model names, showing it the action and the candidates', async () => {
    model.setScript((turn) => {
      expect(turn.lastUser).toContain(UNMATCHED);
      expect(turn.lastUser).toContain('orbit.read-my-profile');
      expect(turn.lastUser).not.toContain('forgehub.');
      return { tool: 'choose_playbook', args: { name: 'orbit.read-my-profile' } };
    });
    const before = model.calls;
    const r = await route();
    expect(r.playbook?.name).toBe('orbit.read-my-profile');
    expect(r).toMatchObject({ via: 'model' });
    expect(model.calls).toBe(before + 1);
  });

  it('asks nothing when the text search already matched', async () => {
    model.setScript(() => ({ status: 500 }));
    const before = model.calls;
    const r = await route(registryWithModel(), 'Read my profile');
    expect(r).toMatchObject({ via: 'text' });
    expect(model.calls).toBe(before);
  });

  it.each([
    ['"none"', () => ({ tool: 'choose_playbook', args: { name: 'none' } })],
    ['a name that is not a candidate', () => ({ tool: 'choose_playbook', args: { name: 'orbit.delete-everything' } })],
    ['an HTTP error', () => ({ status: 500 })],
    ['garbage', () => ({ raw: '{not json' })],
    ['text instead of a tool call', () => ({ content: 'I think the profile one' })],
  ] as const)('falls through to the next way when the model answers %s', async (_label, reply) => {
    model.setScript(reply as never);
    const r = await route();
    expect(r.playbook).toBeNull();
  });

  it('without a model router, an unmatched action has no playbook', async () => {
    const r = await route(builtInPlaybooks());
    expect(r.playbook).toBeNull();
  });
});
