import fs from 'node:fs';
import path from 'node:path';

import request from 'supertest';

import { CONNECTION_STATUS_MODEL } from '../../contract/connection-health';
import { buildOpenApiDocument } from '../../openapi/document';
import { ConnectionHealthService, type ProbeVerdict, type SessionProbe } from '../../server/domain/connection-health.service';
import type { ConnectionRecord } from '../../server/store';
import { describeEachStore, type TestApp } from '../support/app';
import {
  connectSandbox,
  createOrg,
  del,
  expectError,
  expectNoInternals,
  FORGEHUB_PROVIDER_ID,
  get,
  type Headers,
  ORBIT_PROVIDER_ID,
  post,
  productionHeaders,
  sandboxHeaders,
  type TestOrg,
} from '../support/helpers';

/**
 * The health-check API on SQLite and PostgreSQL: the organization's schedule (GET/PATCH /api/connections/settings) and
 * a check asked for now (POST /api/connections/{connectionId}/check), with its refusals. The browser part of a check
 * (server/agent/health/session-probe.ts, proven against the sandbox in test/agent/health-checks.test.ts) is replaced
 * here by a scripted probe, so each verdict, a check that never ends and two checks racing are exact.
 */
const SESSION = { cookies: [], origins: [] };

/** A probe whose verdicts the test scripts; `gate` holds every check until opened. */
class ScriptedProbe implements SessionProbe {
  verdict: ProbeVerdict = { kind: 'signed_in', session: SESSION };
  calls: ConnectionRecord[] = [];
  aborted = 0;
  private release: (() => void) | null = null;
  private held: Promise<void> | null = null;

  hold() {
    this.held = new Promise((r) => (this.release = r));
  }
  open() {
    this.release?.();
    this.held = null;
  }
  /** Never answers; only notices the abort of its budget. */
  hang = false;

  async check(input: { connection: ConnectionRecord; signal: AbortSignal }): Promise<ProbeVerdict> {
    this.calls.push(input.connection);
    input.signal.addEventListener('abort', () => (this.aborted += 1));
    if (this.hang) return new Promise(() => undefined);
    await this.held;
    return this.verdict;
  }
}

function useProbe(t: TestApp, probe: SessionProbe, settings = { budgetMs: 5000, concurrency: 2 }) {
  const s = t.services;
  s.connectionHealth = new ConnectionHealthService(
    {
      store: t.store,
      clock: t.clock,
      connections: s.connections,
      catalogue: s.catalogue,
      settings: s.connectionSettings,
      probe,
      ownerId: 'test:api',
    },
    settings,
  );
}

/** Checks asked for through the API that wait for a slot of this process (the service's ConcurrencyLimit queue). */
const checksWaiting = (t: TestApp) =>
  (t.services.connectionHealth as unknown as { onRequest: { waiting: unknown[] } }).onRequest.waiting.length;

const patch = (t: TestApp, path: string, headers: Headers, body: unknown) =>
  request(t.server)
    .patch(path)
    .set(headers)
    .send(body as object);

const check = (t: TestApp, org: TestOrg, connectionId: string, headers = sandboxHeaders(org)) =>
  post(t, `/api/connections/${connectionId}/check`, headers);

describeEachStore('connection health-check settings', (t) => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await createOrg(t, 'Schedule Co');
  });

  it('GET: the defaults before any change', async () => {
    const res = await get(t, '/api/connections/settings', sandboxHeaders(org));
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      healthCheck: { intervalSeconds: null, providers: {}, defaultIntervalSeconds: 4 * 3600 },
      signedAgent: { enabled: false, directoryUrl: expect.stringMatching(/\/\.well-known\/http-message-signatures-directory$/) },
      updatedAt: null,
    });
  });

  it('PATCH sets the interval and per-provider ones, merges, removes with null; per environment', async () => {
    const headers = sandboxHeaders(org);
    const set = await patch(t, '/api/connections/settings', headers, {
      healthCheck: { intervalSeconds: 7200, providers: { [ORBIT_PROVIDER_ID]: 1800, [FORGEHUB_PROVIDER_ID]: 0 } },
    });
    expect(set.status).toBe(200);
    expect(set.body).toStrictEqual({
      healthCheck: {
        intervalSeconds: 7200,
        providers: { [ORBIT_PROVIDER_ID]: 1800, [FORGEHUB_PROVIDER_ID]: 0 },
        defaultIntervalSeconds: 14400,
      },
      signedAgent: { enabled: false, directoryUrl: expect.any(String) },
      updatedAt: t.clock.now().toISOString(),
    });
    const merged = await patch(t, '/api/connections/settings', headers, { healthCheck: { providers: { [FORGEHUB_PROVIDER_ID]: null } } });
    expect(merged.body.healthCheck).toStrictEqual({
      intervalSeconds: 7200,
      providers: { [ORBIT_PROVIDER_ID]: 1800 },
      defaultIntervalSeconds: 14400,
    });
    const reset = await patch(t, '/api/connections/settings', headers, { healthCheck: { intervalSeconds: null } });
    expect(reset.body.healthCheck.intervalSeconds).toBeNull();
    expect((await get(t, '/api/connections/settings', headers)).body.healthCheck.providers).toStrictEqual({ [ORBIT_PROVIDER_ID]: 1800 });
    // The other environment has settings of its own.
    expect((await get(t, '/api/connections/settings', productionHeaders(org))).body.healthCheck).toMatchObject({
      intervalSeconds: null,
      providers: {},
    });
  });

  it('PATCH refuses what is out of bounds, unknown or empty, with the path of the field', async () => {
    const headers = sandboxHeaders(org);
    expectError(await patch(t, '/api/connections/settings', headers, { healthCheck: { intervalSeconds: 30 } }), 'INVALID_FIELD', {
      message: /healthCheck\.intervalSeconds/,
      details: [{ path: 'healthCheck.intervalSeconds', message: expect.stringMatching(/0 \(off\) or between 60 and 2592000/) }],
    });
    for (const body of [
      { healthCheck: { intervalSeconds: 31 * 24 * 3600 } },
      { healthCheck: { intervalSeconds: 90.5 } },
      { healthCheck: {} },
      { healthCheck: { every: 60 } },
      { other: true },
      { healthCheck: { providers: { 'not-a-uuid': 600 } } },
      { healthCheck: { providers: { [ORBIT_PROVIDER_ID]: -1 } } },
    ]) {
      expectError(await patch(t, '/api/connections/settings', headers, body), 'INVALID_FIELD', { details: expect.any(Array) });
    }
    const unknown = '00000000-0000-4000-8000-000000000000';
    expectError(
      await patch(t, '/api/connections/settings', headers, { healthCheck: { providers: { [unknown]: 600 } } }),
      'UNKNOWN_PROVIDER',
      {
        details: [{ path: `healthCheck.providers.${unknown}`, message: 'not a provider of this environment' }],
      },
    );
    // Removing an override of a provider that is gone is fine.
    expect((await patch(t, '/api/connections/settings', headers, { healthCheck: { providers: { [unknown]: null } } })).status).toBe(200);
  });

  it('signedAgent: off by default, turned on and off per environment, the schedule untouched; bad values refused', async () => {
    const signer = await createOrg(t, 'Signing Co');
    const headers = sandboxHeaders(signer);
    await patch(t, '/api/connections/settings', headers, { healthCheck: { intervalSeconds: 7200 } });
    const on = await patch(t, '/api/connections/settings', headers, { signedAgent: { enabled: true } });
    expect(on.status).toBe(200);
    expect(on.body.signedAgent).toStrictEqual({
      enabled: true,
      directoryUrl: 'http://localhost:4000/.well-known/http-message-signatures-directory',
    });
    expect(on.body.healthCheck.intervalSeconds).toBe(7200);
    // Changing the schedule keeps the choice; the other environment has its own (off).
    expect((await patch(t, '/api/connections/settings', headers, { healthCheck: { intervalSeconds: 600 } })).body.signedAgent.enabled).toBe(
      true,
    );
    expect((await get(t, '/api/connections/settings', productionHeaders(signer))).body.signedAgent.enabled).toBe(false);
    const owner = { organizationId: signer.organizationId, environment: 'sandbox' as const };
    expect(await t.services.connectionSettings.signsRequests(owner)).toBe(true);
    // Signed only where the provider opted in as well.
    expect(await t.services.signedAgent.signerFor(owner, { signedAgent: true })).not.toBeNull();
    expect(await t.services.signedAgent.signerFor(owner, {})).toBeNull();
    // Never an organization's own provider: the deployment's key is the operator's to lend.
    expect(await t.services.signedAgent.signerFor(owner, { signedAgent: true, source: 'organization' })).toBeNull();
    expect((await patch(t, '/api/connections/settings', headers, { signedAgent: { enabled: false } })).body.signedAgent.enabled).toBe(
      false,
    );
    expect(await t.services.connectionSettings.signsRequests(owner)).toBe(false);
    expect(await t.services.signedAgent.signerFor(owner, { signedAgent: true })).toBeNull();
    for (const body of [{}, { signedAgent: {} }, { signedAgent: { enabled: 'yes' } }, { signedAgent: { enabled: true, key: 'x' } }]) {
      expectError(await patch(t, '/api/connections/settings', headers, body), 'INVALID_FIELD', { details: expect.any(Array) });
    }
  });

  it('the key directory is public, in its media type, with public keys only', async () => {
    const res = await request(t.server).get('/.well-known/http-message-signatures-directory');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/http-message-signatures-directory+json');
    const [key] = await t.services.signingKeys();
    expect(JSON.parse(res.text)).toStrictEqual({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: key.publicJwk.x, kid: key.keyid }] });
    expect(res.headers['signature-input']).toContain(`keyid="${key.keyid}"`);
  });

  it('a change plans the connections again (their next check moves now, with the new interval)', async () => {
    const { connectionId } = await connectSandbox(t, org, { clientUserId: 'planned' });
    await t.store.repos.connections.planCheck(connectionId, new Date(t.clock.now().getTime() + 3_600_000));
    expect((await t.store.repos.connections.findById(connectionId))!.nextCheckAt).not.toBeNull();
    await patch(t, '/api/connections/settings', sandboxHeaders(org), { healthCheck: { intervalSeconds: 600 } });
    expect((await t.store.repos.connections.findById(connectionId))!.nextCheckAt).toBeNull();
  });
});

describeEachStore('POST /api/connections/{connectionId}/check', (t) => {
  let org: TestOrg;
  let other: TestOrg;
  const probe = new ScriptedProbe();

  beforeAll(async () => {
    org = await createOrg(t, 'Checks Co');
    other = await createOrg(t, 'Other Co');
    useProbe(t, probe);
    const hook = await post(t, '/api/webhooks', sandboxHeaders(org), {
      url: 'http://127.0.0.1:9/hooks',
      events: ['CONNECTION.LOGIN_REQUIRED', 'CONNECTION.RECOVERED', 'CONNECTION.SESSION_RENEWED'],
    });
    expect(hook.status).toBe(201);
  });

  beforeEach(() => {
    probe.verdict = { kind: 'signed_in', session: SESSION };
    probe.hang = false;
    probe.open();
  });

  const eventsOf = async (connectionId: string) => {
    await t.services.webhookEvents.idle();
    const rows = await t.store.repos.webhookEvents.listOwned({ organizationId: org.organizationId, environment: 'sandbox' });
    return rows
      .map((r) => JSON.parse(r.payload) as { type: string; object: { connectionId: string } })
      .filter((e) => e.object.connectionId === connectionId);
  };

  it('checks now: the outcome and the connection with its lastCheckedAt and lastCheckOutcome, nothing internal', async () => {
    const { connectionId } = await connectSandbox(t, org, { clientUserId: 'now' });
    const before = (await t.store.repos.connections.findById(connectionId))!;
    const res = await check(t, org, connectionId);
    expect(res.status).toBe(200);
    const at = t.clock.now().toISOString();
    expect(res.body).toStrictEqual({
      outcome: 'SIGNED_IN',
      checkedAt: at,
      durationMs: expect.any(Number),
      connection: expect.objectContaining({ connectionId, status: 'ACTIVE', lastCheckedAt: at, lastCheckOutcome: 'SIGNED_IN' }),
    });
    expectNoInternals(res.body.connection);
    expect(JSON.stringify(res.body)).not.toMatch(/sealed|lease|checkOwner|nextCheck/i);
    expect((await get(t, `/api/connections/${connectionId}`, sandboxHeaders(org))).body).toMatchObject({
      lastCheckedAt: at,
      lastCheckOutcome: 'SIGNED_IN',
    });
    // The probe's session was sealed back; the lease is released; the next check is planned.
    const after = (await t.store.repos.connections.findById(connectionId))!;
    expect(after.sealedSession).not.toBe(before.sealedSession);
    expect(after).toMatchObject({ checkOwner: null, checkLeaseUntil: null, lastUsedAt: null });
    expect(after.nextCheckAt!.getTime()).toBeGreaterThan(t.clock.now().getTime());
  });

  it('404 for an unknown connection, another organization’s, and one of the other environment', async () => {
    const { connectionId } = await connectSandbox(t, org, { clientUserId: 'mine' });
    const calls = probe.calls.length;
    expectError(await check(t, org, 'conn_000000000000000000000000'), 'CONNECTION_NOT_FOUND');
    expectError(await check(t, other, connectionId), 'CONNECTION_NOT_FOUND');
    expectError(await check(t, org, connectionId, productionHeaders(org)), 'CONNECTION_NOT_FOUND');
    expectError(await check(t, org, 'x'.repeat(65)), 'INVALID_FIELD', {
      details: [{ path: 'params.connectionId', message: expect.stringMatching(/at most 64/) }],
    });
    expect(probe.calls.length).toBe(calls);
  });

  it('409 CONNECTION_REVOKED for a revoked connection (nothing to check)', async () => {
    const { connectionId } = await connectSandbox(t, org, { clientUserId: 'revoked' });
    await del(t, `/api/connections/${connectionId}`, sandboxHeaders(org));
    const calls = probe.calls.length;
    expectError(await check(t, org, connectionId), 'CONNECTION_REVOKED');
    expect(probe.calls.length).toBe(calls);
  });

  it('two checks at once: one runs, the other gets 409 CONNECTION_CHECK_IN_PROGRESS', async () => {
    const { connectionId } = await connectSandbox(t, org, { clientUserId: 'racing' });
    probe.hold();
    const first = check(t, org, connectionId).then((r) => r);
    while (!probe.calls.some((c) => c.id === connectionId)) await new Promise((r) => setTimeout(r, 10));
    const second = await check(t, org, connectionId);
    expectError(second, 'CONNECTION_CHECK_IN_PROGRESS', { details: { retryAfterSeconds: 5 } });
    expect(second.headers['retry-after']).toBe('5');
    probe.open();
    expect((await first).body.outcome).toBe('SIGNED_IN');
    expect(probe.calls.filter((c) => c.id === connectionId)).toHaveLength(1);
  });

  it('429 CONNECTION_CHECK_RATE_LIMITED within 10 s of the last check, with Retry-After; allowed after', async () => {
    const { connectionId } = await connectSandbox(t, org, { clientUserId: 'eager' });
    expect((await check(t, org, connectionId)).status).toBe(200);
    t.clock.advance(4000);
    const refused = await check(t, org, connectionId);
    expectError(refused, 'CONNECTION_CHECK_RATE_LIMITED', { details: { retryAfterSeconds: 6 } });
    expect(refused.headers['retry-after']).toBe('6');
    t.clock.advance(6000);
    expect((await check(t, org, connectionId)).status).toBe(200);
  });

  it('the budget runs out: TIMED_OUT, the probe told to stop, the status unchanged, the next check sooner', async () => {
    const hanging = new ScriptedProbe();
    hanging.hang = true;
    useProbe(t, hanging, { budgetMs: 150, concurrency: 2 });
    try {
      const { connectionId } = await connectSandbox(t, org, { clientUserId: 'slow' });
      const res = await check(t, org, connectionId);
      expect(res.body).toMatchObject({ outcome: 'TIMED_OUT', connection: { status: 'ACTIVE', lastCheckOutcome: 'TIMED_OUT' } });
      expect(res.body.durationMs).toBeGreaterThanOrEqual(140);
      expect(hanging.aborted).toBe(1);
      const row = (await t.store.repos.connections.findById(connectionId))!;
      expect(row.nextCheckAt!.getTime() - t.clock.now().getTime()).toBeLessThanOrEqual(15 * 60 * 1000 * 1.1);
      expect(row.checkOwner).toBeNull();
      expect(await eventsOf(connectionId)).toEqual([]);
    } finally {
      useProbe(t, probe);
    }
  });

  it('verdicts: ended → LOGIN_REQUIRED and its event; found signed in later → RECOVERED; unreadable and unreachable change nothing', async () => {
    const { connectionId } = await connectSandbox(t, org, { clientUserId: 'verdicts' });
    probe.verdict = { kind: 'login_required', reason: 'the provider shows its sign-in page' };
    expect((await check(t, org, connectionId)).body).toMatchObject({ outcome: 'LOGIN_REQUIRED', connection: { status: 'LOGIN_REQUIRED' } });
    expect((await eventsOf(connectionId)).map((e) => e.type)).toEqual(['CONNECTION.LOGIN_REQUIRED']);
    expect((await t.store.repos.connections.findById(connectionId))!.nextCheckAt).toBeNull();

    for (const [verdict, outcome] of [
      [{ kind: 'unreadable' }, 'SESSION_UNREADABLE'],
      [{ kind: 'unreachable', reason: 'the provider answered HTTP 503' }, 'UNREACHABLE'],
    ] as const) {
      t.clock.advance(10_000);
      probe.verdict = verdict;
      expect((await check(t, org, connectionId)).body).toMatchObject({ outcome, connection: { status: 'LOGIN_REQUIRED' } });
    }
    t.clock.advance(10_000);
    probe.verdict = { kind: 'signed_in', session: SESSION };
    expect((await check(t, org, connectionId)).body).toMatchObject({ outcome: 'SIGNED_IN', connection: { status: 'ACTIVE' } });
    const events = await eventsOf(connectionId);
    expect(events.map((e) => e.type)).toEqual(['CONNECTION.RECOVERED', 'CONNECTION.LOGIN_REQUIRED']);
  });

  it('a renewal on an ACTIVE connection: RENEWED and CONNECTION.SESSION_RENEWED, still ACTIVE', async () => {
    const { connectionId } = await connectSandbox(t, org, { clientUserId: 'renewed' });
    probe.verdict = { kind: 'renewed', session: SESSION };
    expect((await check(t, org, connectionId)).body).toMatchObject({ outcome: 'RENEWED', connection: { status: 'ACTIVE' } });
    expect((await eventsOf(connectionId)).map((e) => e.type)).toEqual(['CONNECTION.SESSION_RENEWED']);
  });

  it('more checks than this process runs at once (and lets wait): 429 CONNECTION_CHECK_RATE_LIMITED', async () => {
    const held = new ScriptedProbe();
    held.hold();
    useProbe(t, held, { budgetMs: 5000, concurrency: 1 });
    try {
      const ids = await Promise.all(
        ['a', 'b', 'c'].map(async (u) => (await connectSandbox(t, org, { clientUserId: `busy-${u}` })).connectionId),
      );
      const running = [check(t, org, ids[0]!).then((r) => r), check(t, org, ids[1]!).then((r) => r)];
      // One check runs (held in the probe) and the other waits for its slot: then the third finds no room.
      while (held.calls.length === 0 || checksWaiting(t) === 0) await new Promise((r) => setTimeout(r, 10));
      expectError(await check(t, org, ids[2]!), 'CONNECTION_CHECK_RATE_LIMITED', { details: { retryAfterSeconds: 5 } });
      held.open();
      expect((await Promise.all(running)).map((r) => r.status)).toEqual([200, 200]);
    } finally {
      useProbe(t, probe);
    }
  });
});

describe('the connection status model, written down', () => {
  it('is the same table in the README and in the OpenAPI description; the webhooks list each event of it', () => {
    const readme = fs.readFileSync(path.join(__dirname, '../../README.md'), 'utf8');
    expect(readme).toContain(CONNECTION_STATUS_MODEL);
    const doc = buildOpenApiDocument() as { info: { description: string }; webhooks: Record<string, { post: { description: string } }> };
    expect(doc.info.description).toContain(CONNECTION_STATUS_MODEL);
    for (const event of CONNECTION_STATUS_MODEL.match(/CONNECTION\.[A-Z_]+/g)!) {
      expect(doc.webhooks[event]?.post.description).toEqual(expect.stringMatching(/\S/));
    }
  });
});
