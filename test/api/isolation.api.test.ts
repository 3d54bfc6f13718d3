import type { ErrorCode } from '../../contract/error-codes';
import type { Environment } from '../../server/config';
import { describeEachStore } from '../support/app';
import {
  agentRequestBody,
  connectProduction,
  connectSandbox,
  createOrg,
  credentials,
  del,
  exchange,
  expectError,
  get,
  GITHUB_PROVIDER_ID,
  type Headers,
  ORBIT_PROVIDER_ID,
  post,
  productionAgentRequestBody,
  type TestOrg,
} from '../support/helpers';

interface CallerSpec {
  label: string;
  org: 'A' | 'B';
  env: Environment;
}

const CALLERS: CallerSpec[] = [
  { label: 'org A sandbox', org: 'A', env: 'sandbox' },
  { label: 'org A production', org: 'A', env: 'production' },
  { label: 'org B sandbox', org: 'B', env: 'sandbox' },
  { label: 'org B production', org: 'B', env: 'production' },
];

interface Owned {
  headers: Headers;
  clientUserId: string;
  /** Not yet exchanged. */
  publicToken: string;
  accessToken: string;
  connectionId: string;
  agentRequestId: string;
}

const PAIRS = CALLERS.flatMap((owner) =>
  CALLERS.filter((c) => c !== owner).map((caller) => [owner.label, caller.label, owner, caller] as const),
);

describeEachStore('isolation between organizations and environments', (t) => {
  const owned = new Map<string, Owned>();
  const headersOf = new Map<string, Headers>();

  beforeAll(async () => {
    const orgs: Record<'A' | 'B', TestOrg> = { A: await createOrg(t, 'Org A'), B: await createOrg(t, 'Org B') };
    for (const spec of CALLERS) {
      const org = orgs[spec.org];
      const headers = credentials(org, spec.env);
      headersOf.set(spec.label, headers);
      const clientUserId = `secret-user-of-${spec.org}-${spec.env}`;
      const connected =
        spec.env === 'sandbox' ? await connectSandbox(t, org, { clientUserId }) : await connectProduction(t, org, { clientUserId });
      const body = spec.env === 'sandbox' ? agentRequestBody(t, connected.accessToken) : productionAgentRequestBody(connected.accessToken);
      const areq = await post(t, '/api/agent-requests', headers, body);
      expect(areq.status).toBe(202);
      // A second, unexchanged public token of the same kind.
      const fresh =
        spec.env === 'sandbox'
          ? (await post(t, '/api/sandbox/public_token/create', headers, { providerId: ORBIT_PROVIDER_ID, clientUserId })).body.publicToken
          : await productionPublicToken(org, clientUserId);
      owned.set(spec.label, {
        headers,
        clientUserId,
        publicToken: fresh,
        accessToken: connected.accessToken,
        connectionId: connected.connectionId,
        agentRequestId: areq.body.requestId,
      });
    }
  }, 60_000);

  /** Production connections come from the connect widget; here the connection service makes one directly. */
  async function productionPublicToken(org: TestOrg, clientUserId: string) {
    const created = await t.services.connections.create(
      { organizationId: org.organizationId, environment: 'production' },
      { providerId: GITHUB_PROVIDER_ID, clientUserId },
    );
    return created.publicToken;
  }

  /** The error must not leak anything about the resource. */
  function expectNoData(res: { body: unknown }, o: Owned) {
    const text = JSON.stringify(res.body);
    for (const secret of [o.clientUserId, o.accessToken, o.publicToken]) expect(text).not.toContain(secret);
  }

  describe.each(PAIRS)("%s's resources used by %s", (_o, _c, ownerSpec, callerSpec) => {
    const sameEnv = ownerSpec.env === callerSpec.env;

    it('public token: refused, and not consumed', async () => {
      const o = owned.get(ownerSpec.label)!;
      const code: ErrorCode = sameEnv ? 'PUBLIC_TOKEN_ORGANIZATION_MISMATCH' : 'PUBLIC_TOKEN_ENVIRONMENT_MISMATCH';
      const res = await exchange(t, headersOf.get(callerSpec.label)!, o.publicToken);
      expectError(res, code);
      expectNoData(res, o);
    });

    it('access token: refused for agent requests', async () => {
      const o = owned.get(ownerSpec.label)!;
      const code: ErrorCode = sameEnv ? 'INVALID_ACCESS_TOKEN' : 'ACCESS_TOKEN_ENVIRONMENT_MISMATCH';
      const body = callerSpec.env === 'sandbox' ? agentRequestBody(t, o.accessToken) : productionAgentRequestBody(o.accessToken);
      const res = await post(t, '/api/agent-requests', headersOf.get(callerSpec.label)!, body);
      expectError(res, code);
      expectNoData(res, o);
    });

    it('connection id: 404 on GET and DELETE, and the DELETE changes nothing', async () => {
      const o = owned.get(ownerSpec.label)!;
      const h = headersOf.get(callerSpec.label)!;
      const read = await get(t, `/api/connections/${o.connectionId}`, h);
      expectError(read, 'CONNECTION_NOT_FOUND', { message: `No connection ${o.connectionId}.` });
      expectNoData(read, o);
      expectError(await del(t, `/api/connections/${o.connectionId}`, h), 'CONNECTION_NOT_FOUND', {
        message: `No connection ${o.connectionId}.`,
      });
      const mine = await get(t, `/api/connections/${o.connectionId}`, o.headers);
      expect(mine.status).toBe(200);
      expect(mine.body.status).toBe('ACTIVE');
    });

    it('agent request id: 404', async () => {
      const o = owned.get(ownerSpec.label)!;
      const res = await get(t, `/api/agent-requests/${o.agentRequestId}`, headersOf.get(callerSpec.label)!);
      expectError(res, 'AGENT_REQUEST_NOT_FOUND', { message: `No agent request ${o.agentRequestId}.` });
      expectNoData(res, o);
    });
  });

  describe.each(CALLERS.map((c) => [c.label, c] as const))('%s after all the foreign attempts', (_l, spec) => {
    it('still owns everything: reads its records, uses its access token, exchanges its public token', async () => {
      const o = owned.get(spec.label)!;
      const conn = await get(t, `/api/connections/${o.connectionId}`, o.headers);
      expect(conn.body).toMatchObject({
        connectionId: o.connectionId,
        clientUserId: o.clientUserId,
        environment: spec.env,
        status: 'ACTIVE',
      });
      const areq = await get(t, `/api/agent-requests/${o.agentRequestId}`, o.headers);
      expect(areq.body).toMatchObject({ requestId: o.agentRequestId, connectionId: o.connectionId, environment: spec.env });
      const body = spec.env === 'sandbox' ? agentRequestBody(t, o.accessToken) : productionAgentRequestBody(o.accessToken);
      expect((await post(t, '/api/agent-requests', o.headers, body)).status).toBe(202);
      const ex = await exchange(t, o.headers, o.publicToken);
      expect(ex.status).toBe(200);
      expect(ex.body).toMatchObject({ clientUserId: o.clientUserId, environment: spec.env });
    });
  });
});
