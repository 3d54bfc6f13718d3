import Ajv from 'ajv';

import { compileResponseFormat } from '../../contract/response-format';
import { describeEachStore } from '../support/app';
import {
  agentRequestBody,
  type Connected,
  connectSandbox,
  createOrg,
  expectError,
  FORGEHUB_PROVIDER_ID,
  get,
  GITHUB_PROVIDER_ID,
  ORBIT_PROVIDER_ID,
  post,
  sandboxHeaders,
  type TestOrg,
} from '../support/helpers';

/**
 * The action catalogue (GET /api/providers/{providerId}/actions) and agent requests that name their playbook:
 * a bad name, parameters that do not fit or a write in read mode are refused with a precise 400 before anything
 * is queued.
 */
describeEachStore('provider actions', (t) => {
  let org: TestOrg;
  let conn: Connected;
  beforeAll(async () => {
    org = await createOrg(t, 'Actions Co');
    conn = await connectSandbox(t, org, { clientUserId: 'actions-user' });
  });

  it('lists every playbook of a provider: description, examples, parameters as JSON Schema, writes, result fields', async () => {
    const res = await get(t, `/api/providers/${ORBIT_PROVIDER_ID}/actions`, sandboxHeaders(org));
    expect(res.status).toBe(200);
    expect(res.body.providerId).toBe(ORBIT_PROVIDER_ID);
    const byName = Object.fromEntries(res.body.actions.map((a: { name: string }) => [a.name, a]));
    expect(Object.keys(byName)).toEqual(expect.arrayContaining(['orbit.read-my-profile', 'orbit.create-post', 'orbit.send-message']));
    const send = byName['orbit.send-message'];
    expect(send).toMatchObject({
      description: expect.stringMatching(/direct message/),
      examples: expect.arrayContaining(["Send a message to Priya Nair saying 'Running late, sorry!'"]),
      writes: true,
      resultFields: expect.objectContaining({ sent: expect.stringMatching(/^boolean/), sentAt: expect.stringMatching(/^datetime/) }),
    });
    expect(send.parameters).toMatchObject({
      type: 'object',
      required: ['recipient', 'text'],
      additionalProperties: false,
      properties: {
        recipient: { type: 'string', 'x-aliases': expect.arrayContaining(['to']), 'x-from-action': expect.stringContaining('to <person>') },
        text: { type: 'string', maxLength: 2000, 'x-from-action': expect.stringContaining('quoted text') },
      },
    });
    expect(byName['orbit.read-my-profile']).toMatchObject({ writes: false });

    // Usable as they are: each parameters document is a JSON Schema, each resultFields a valid responseFormat.
    const ajv = new Ajv({ strict: false });
    for (const action of res.body.actions) {
      expect(() => ajv.compile(action.parameters)).not.toThrow();
      expect(() => compileResponseFormat(action.resultFields)).not.toThrow();
      expect(action.examples.length).toBeGreaterThanOrEqual(3);
    }
    const validSend = ajv.compile(send.parameters);
    expect(validSend({ recipient: 'priya-nair', text: 'Hi' })).toBe(true);
    expect(validSend({ recipient: 'priya-nair' })).toBe(false);
  });

  it('lists ForgeHub actions, none for a provider without playbooks, and 404 for an unknown provider', async () => {
    const forge = await get(t, `/api/providers/${FORGEHUB_PROVIDER_ID}/actions`, sandboxHeaders(org));
    expect(forge.body.actions.map((a: { name: string }) => a.name)).toEqual(
      expect.arrayContaining(['forgehub.star-repository', 'forgehub.open-issue']),
    );
    // GitHub is a production provider: not in the sandbox catalogue.
    expectError(await get(t, `/api/providers/${GITHUB_PROVIDER_ID}/actions`, sandboxHeaders(org)), 'PROVIDER_NOT_FOUND');
    expectError(await get(t, '/api/providers/not-a-provider/actions', sandboxHeaders(org)), 'PROVIDER_NOT_FOUND');
    expectError(await get(t, `/api/providers/${ORBIT_PROVIDER_ID}/actions`), 'MISSING_CLIENT_CREDENTIALS');
  });

  describe('an agent request that names its playbook', () => {
    const body = (overrides: Record<string, unknown>) =>
      agentRequestBody(t, conn.accessToken, { parameters: {}, responseFormat: { name: 'string' }, ...overrides });

    it('is accepted and stored with the name', async () => {
      const res = await post(t, '/api/agent-requests', sandboxHeaders(org), body({ playbook: 'orbit.read-my-profile' }));
      expect(res.status).toBe(202);
      const got = await get(t, `/api/agent-requests/${res.body.requestId}`, sandboxHeaders(org));
      expect(got.body).toMatchObject({ playbook: 'orbit.read-my-profile', warnings: [] });
      // Without one, the field is null.
      const routed = await post(t, '/api/agent-requests', sandboxHeaders(org), body({}));
      expect((await get(t, `/api/agent-requests/${routed.body.requestId}`, sandboxHeaders(org))).body.playbook).toBeNull();
    });

    it('refuses a name the provider does not have, listing those it has, and stores nothing', async () => {
      const before = (await get(t, '/api/agent-requests?limit=100', sandboxHeaders(org))).body.data.length;
      const res = await post(t, '/api/agent-requests', sandboxHeaders(org), body({ playbook: 'forgehub.star-repository' }));
      expectError(res, 'UNKNOWN_PLAYBOOK', {
        message: /^playbook: Orbit \(sandbox social network\) has no action forgehub\.star-repository \(it has .*orbit\.send-message/,
        details: [
          { path: 'playbook', message: 'is not an action of this provider', available: expect.arrayContaining(['orbit.create-post']) },
        ],
      });
      expectError(await post(t, '/api/agent-requests', sandboxHeaders(org), body({ playbook: 'Not A Name!' })), 'INVALID_FIELD', {
        details: [{ path: 'playbook', message: 'must be a playbook name such as orbit.send-message' }],
      });
      expect((await get(t, '/api/agent-requests?limit=100', sandboxHeaders(org))).body.data.length).toBe(before);
    });

    it('names the parameter that is missing or does not fit, and where a value read from the action came from', async () => {
      expectError(
        await post(
          t,
          '/api/agent-requests',
          sandboxHeaders(org),
          body({ playbook: 'orbit.send-message', action: 'Send a message to Priya Nair' }),
        ),
        'PLAYBOOK_PARAMETERS_MISSING',
        { message: /parameters\.text/, details: [{ path: 'parameters.text', message: 'Required' }] },
      );
      expectError(
        await post(
          t,
          '/api/agent-requests',
          sandboxHeaders(org),
          body({ playbook: 'orbit.create-post', parameters: { text: 'x'.repeat(3001) } }),
        ),
        'PLAYBOOK_PARAMETERS_INVALID',
        { details: [{ path: 'parameters.text', message: 'Orbit posts hold at most 3000 characters' }] },
      );
      expectError(
        await post(
          t,
          '/api/agent-requests',
          sandboxHeaders(org),
          body({ playbook: 'orbit.read-my-feed', action: 'Read my 80 latest posts' }),
        ),
        'PLAYBOOK_PARAMETERS_INVALID',
        {
          details: [
            {
              path: 'parameters.limit',
              message: 'at most 50 posts are read at once (read from the action: 80)',
              source: 'action',
              value: 80,
            },
          ],
        },
      );
      // What the action says fills the rest: accepted.
      const ok = await post(
        t,
        '/api/agent-requests',
        sandboxHeaders(org),
        body({ playbook: 'orbit.send-message', action: "Send a message to Priya Nair saying 'Hi'" }),
      );
      expect(ok.status).toBe(202);
    });

    it('refuses a playbook that writes for a read-only request', async () => {
      expectError(
        await post(
          t,
          '/api/agent-requests',
          sandboxHeaders(org),
          body({ playbook: 'orbit.create-post', parameters: { text: 'Hi' }, mode: 'read' }),
        ),
        'PLAYBOOK_WRITES_IN_READ_MODE',
        { details: [{ path: 'playbook', message: 'changes things; the request has mode read' }] },
      );
    });
  });
});
