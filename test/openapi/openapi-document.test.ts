import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

import request from 'supertest';

import { ERROR_CATALOGUE } from '../../contract/error-codes';
import { routeErrorCodes, routeErrorCodesByStatus, WIDGET_ONLY_ERROR_CODES } from '../../contract/route-errors';
import { WEBHOOK_EVENT_TYPES } from '../../contract/webhook-schemas';
import { renderOpenApi } from '../../openapi/generate';
import type { LintProblem } from '../../openapi/lint';
import { createTestApp, type TestApp } from '../support/app';
import { contractRoutes } from '../support/contract-routes';
import { createOrg, sandboxHeaders, type TestOrg } from '../support/helpers';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const doc = JSON.parse(renderOpenApi()) as Json;
const ROOT = path.join(__dirname, '..', '..');

/** Follows a local $ref (#/components/…). */
function deref(node: Json): Json {
  if (typeof node?.$ref !== 'string') return node;
  return (node.$ref as string)
    .slice(2)
    .split('/')
    .reduce((o: Json, k) => o[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

const routes = contractRoutes() as unknown as (Json & { method: string; path: string })[];
const operationOf = (route: { method: string; path: string }) =>
  doc.paths[route.path.replace(/:([A-Za-z]+)/g, '{$1}')][route.method.toLowerCase()] as Json;

/** The codes the document allows for one response (the `code` enum of its narrowed Error envelope). */
function documentedCodes(response: Json): string[] {
  return deref(response).content['application/json'].schema.allOf[1].properties.error.properties.code.enum;
}

describe('openapi/openapi.json: linted', () => {
  it("passes Redocly's recommended rules and Spectral's oas ruleset with no error and no warning", async () => {
    // The linters are ES modules that jest's CommonJS runtime cannot load: they run in a child process (see openapi/lint.ts).
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'openapi', 'lint.ts'), '--json', path.join(ROOT, 'openapi', 'openapi.json')],
      { cwd: ROOT, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
    );
    const problems = JSON.parse(stdout) as LintProblem[];
    expect(problems.map((p) => `${p.linter} ${p.severity} ${p.rule}: ${p.message} at ${p.at}`)).toEqual([]);
  }, 150_000);
});

describe('openapi/openapi.json: content', () => {
  it('is OpenAPI 3.1 with a license, and declares every tag its operations use', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    const declared = new Set((doc.tags as Json[]).map((t) => t.name));
    const operations = [...Object.values(doc.paths), ...Object.values(doc.webhooks)].flatMap((item) => Object.values(item as Json));
    for (const op of operations) for (const tag of op.tags) expect(declared).toContain(tag);
    expect(JSON.stringify(doc)).not.toContain('"nullable"');
  });

  it('marks every request body required', () => {
    const withBody = routes.filter((r) => operationOf(r).requestBody);
    expect(withBody.map((r) => r.path)).toEqual(
      expect.arrayContaining(['/api/link-token', '/api/agent-requests', '/api/webhooks/:webhookId']),
    );
    for (const r of withBody) expect(operationOf(r).requestBody.required).toBe(true);
  });

  it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s: one error response per status its codes answer with, code narrowed to them, an example per code',
    (_label, route) => {
      const op = operationOf(route);
      const expected = routeErrorCodesByStatus(route);
      const errorStatuses = Object.keys(op.responses).filter((s) => Number(s) >= 400);
      expect(errorStatuses.map(Number).sort()).toEqual([...expected.keys()]);
      for (const [status, codes] of expected) {
        const response = deref(op.responses[String(status)]);
        expect(documentedCodes(response)).toEqual(codes);
        const examples = response.content['application/json'].examples as Json;
        expect(Object.keys(examples)).toEqual(codes);
        for (const code of codes) {
          const value = deref(examples[code]).value;
          expect(value.error).toMatchObject({ code, type: ERROR_CATALOGUE[code].type, requestId: expect.stringMatching(/^req_/) });
          expect(ERROR_CATALOGUE[code].status).toBe(status);
        }
      }
    },
  );

  it('documents the response headers: x-request-id always, RateLimit-* after auth, Retry-After on 429, Idempotent-Replayed on POST', () => {
    const headersOf = (method: string, p: string, status: string) =>
      Object.keys(deref(doc.paths[p][method].responses[status]).headers ?? {}).sort();
    expect(headersOf('post', '/api/agent-requests', '202')).toEqual(
      ['Idempotent-Replayed', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'x-request-id'].sort(),
    );
    expect(headersOf('get', '/api/providers', '200')).toEqual([
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'x-request-id',
    ]);
    expect(headersOf('get', '/api/providers', '401')).toEqual(['x-request-id']);
    expect(headersOf('get', '/api/providers', '429')).toEqual(
      ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'x-request-id'].sort(),
    );
    for (const item of Object.values(doc.paths) as Json[]) {
      for (const op of Object.values(item)) {
        for (const response of Object.values(op.responses as Json)) expect(Object.keys(deref(response).headers)).toContain('x-request-id');
      }
    }
    expect(doc.components.headers.XRequestId.required).toBe(true);
  });

  it('describes every webhook event as an OpenAPI 3.1 webhook with the Standard Webhooks and AgentLink signature headers', () => {
    expect(Object.keys(doc.webhooks)).toEqual([...WEBHOOK_EVENT_TYPES]);
    for (const type of WEBHOOK_EVENT_TYPES) {
      const op = doc.webhooks[type].post;
      expect(op.requestBody.required).toBe(true);
      expect(op.parameters.map((p: Json) => p.name)).toEqual(
        expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature', 'AgentLink-Signature']),
      );
      const [variant, narrowed] = op.requestBody.content['application/json'].schema.allOf;
      expect(narrowed.properties.type.const).toBe(type);
      expect(deref(variant).properties.type.enum).toContain(type);
    }
  });

  it('every API code is documented on some operation; the widget codes on none', () => {
    const documented = new Set(routes.flatMap((r) => routeErrorCodes(r)));
    const apiCodes = Object.keys(ERROR_CATALOGUE).filter((c) => !(WIDGET_ONLY_ERROR_CODES as readonly string[]).includes(c));
    // ROUTE_NOT_FOUND answers any unknown path; METRICS_UNAUTHORIZED answers /metrics, an operations endpoint outside /api.
    const outsideTheContract = ['ROUTE_NOT_FOUND', 'METRICS_UNAUTHORIZED'];
    expect(apiCodes.filter((c) => !documented.has(c as never) && !outsideTheContract.includes(c))).toEqual([]);
    for (const c of WIDGET_ONLY_ERROR_CODES) expect(documented.has(c)).toBe(false);
  });
});

describe('openapi/openapi.json: the codes the server really answers are the documented ones', () => {
  let t: TestApp;
  let org: TestOrg;
  beforeAll(async () => {
    // Budgets no loop of bad secrets reaches: every operation answers its own 401, not the throttle's 429 (whose
    // answers are held back 250 ms each: 64 of them were 16 s of this file). The 429 has its own case below.
    t = await createTestApp('sqlite', { AGENTLINK_AUTH_FAILURES_PER_CLIENT_ID: '100000', AGENTLINK_AUTH_FAILURES_PER_ADDRESS: '100000' });
    org = await createOrg(t, 'Docs Co');
  });
  afterAll(() => t.close());

  /** The response documented for the status answered, and the code answered among its documented codes. */
  function expectDocumented(route: { method: string; path: string }, res: request.Response) {
    const response = operationOf(route).responses[String(res.status)];
    expect({ route: `${route.method} ${route.path}`, status: res.status, documented: Boolean(response) }).toMatchObject({
      documented: true,
    });
    expect(documentedCodes(response)).toContain(res.body.error.code);
  }
  const urlOf = (route: { method: string; path: string }) =>
    route.path.replace(/:[A-Za-z]+/g, 'x_doesnotexist') + (route.method === 'GET' ? '?cursor=nope' : '');
  const send = (app: TestApp, route: { method: string; path: string }, headers: Record<string, string>, body?: string) => {
    const req = request(app.server)[route.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete'](urlOf(route)).set(headers);
    return body === undefined ? req : req.set('content-type', 'application/json').send(body);
  };

  it('for bad input on every operation, each error code answered is in the documented enum of its status', async () => {
    const bodies = [undefined, '{', '[]', '{"clientUserId":{},"publicToken":[],"accessToken":1}', '{"__proto__":{}}'];
    const cases: [string, Record<string, string>][] = [
      ['none', {}],
      ['bad secret', { 'x-client-id': org.clientId, 'x-client-secret': 'sk_sandbox_' + 'x'.repeat(43) }],
      ['sandbox', sandboxHeaders(org)],
    ];
    let checked = 0;
    for (const route of routes) {
      for (const body of route.method === 'GET' ? [undefined] : bodies) {
        for (const [, headers] of cases) {
          const res = await send(t, route, headers, body);
          if (res.status < 400) continue;
          expectDocumented(route, res);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(routes.length * 3);
  }, 120_000);

  it("a throttled client's 429 is a documented answer of every operation that authenticates", async () => {
    const throttled = await createTestApp('sqlite', { AGENTLINK_AUTH_FAILURES_PER_CLIENT_ID: '1' });
    try {
      const docs = await createOrg(throttled, 'Throttled Co');
      const bad = { 'x-client-id': docs.clientId, 'x-client-secret': 'sk_sandbox_' + 'x'.repeat(43) };
      const authenticated = routes.filter((route) => (route.metadata as { auth?: string } | undefined)?.auth === 'client');
      expect((await send(throttled, authenticated[0]!, bad)).status).toBe(401); // the budget's one failure
      // All at once: each 429 is held back 250 ms, side by side.
      const answers = await Promise.all(authenticated.map((route) => send(throttled, route, bad)));
      answers.forEach((res, i) => {
        expect(res.status).toBe(429);
        expectDocumented(authenticated[i]!, res);
      });
      expect(answers.length).toBeGreaterThan(routes.length / 2);
    } finally {
      await throttled.close();
    }
  });
});
