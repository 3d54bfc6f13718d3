import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { OtlpReceiver, type ReceivedSpan, SPAN_KIND } from '../support/otlp-receiver';

/**
 * OpenTelemetry with OTEL_EXPORTER_OTLP_ENDPOINT set: an agent request is one trace, from the API request through
 * the queue (the traceparent stored on the row) to the worker's run, its strategy and each step. A live AgentLink
 * (fixtures/traced-server.ts, its own process) exports to a loopback OTLP/HTTP JSON receiver; no span holds a
 * token, secret, parameter value, action or page text.
 */
jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '../..');
const PARAM_VALUE = 'param-value-7f3a91c2-do-not-trace';
const ACTION = 'test: search the people directory';

interface Ready {
  baseUrl: string;
  orbitUrl: string;
  headers: Record<string, string>;
  accessToken: string;
}

let receiver: OtlpReceiver;
let child: ChildProcess | undefined;
let stderr = '';

function startTracedServer(): Promise<Ready> {
  child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/ops/fixtures/traced-server.ts')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'agentlink-test',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString('utf8')).slice(-5000)));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the traced server did not start: ${stderr}`)), 60_000);
    child!.stdout!.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      const m = /^READY (.+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(JSON.parse(m[1]) as Ready);
      }
    });
    child!.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the traced server exited (${code}): ${stderr}`));
    });
  });
}

async function stopTracedServer(): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
}

beforeAll(async () => {
  receiver = new OtlpReceiver();
  await receiver.start();
});

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await receiver?.stop();
});

const byId = (spans: ReceivedSpan[], id: string | undefined) => spans.find((s) => s.spanId === id);

it('one trace per agent request: API → publish → worker run → strategy → steps, with no secret in any span', async () => {
  const server = await startTracedServer();
  const api = async (method: string, urlPath: string, body?: unknown) => {
    const res = await fetch(`${server.baseUrl}${urlPath}`, {
      method,
      headers: server.headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> & { trace: { tool: string }[] } };
  };
  const created = await api('POST', '/api/agent-requests', {
    accessToken: server.accessToken,
    action: ACTION,
    startingUrl: server.orbitUrl,
    parameters: { query: PARAM_VALUE },
    responseFormat: { found: 'boolean' },
  });
  expect(created.status).toBe(202);
  const requestId = created.body.requestId as string;
  const record = (await api('GET', `/api/agent-requests/${requestId}?waitMs=30000`)).body;
  expect(record).toMatchObject({ status: 'COMPLETED', method: 'PLAYBOOK' });
  expect(JSON.stringify(record.trace)).toContain(PARAM_VALUE); // the stored trace has it: the spans must not
  await stopTracedServer(); // shutdown exports what is still buffered

  const spans = receiver.spans;
  expect(receiver.contentTypes.length).toBeGreaterThan(0);
  expect(receiver.contentTypes.every((c) => c.startsWith('application/json'))).toBe(true);
  const run = spans.find((s) => s.name === 'agent_request process' && s.attributes['agentlink.agent_request.id'] === requestId)!;
  expect(run).toBeDefined();
  const trace = spans.filter((s) => s.traceId === run.traceId);

  // The chain, parent by parent, up to the API request that started the trace.
  const publish = byId(trace, run.parentSpanId)!;
  expect(publish).toMatchObject({ name: 'agent_request publish', kind: SPAN_KIND.PRODUCER });
  expect(publish.attributes).toMatchObject({ 'agentlink.agent_request.id': requestId });
  const http = byId(trace, publish.parentSpanId)!;
  expect(http).toMatchObject({
    name: 'POST /api/agent-requests',
    kind: SPAN_KIND.SERVER,
    attributes: { 'http.request.method': 'POST', 'http.route': '/api/agent-requests', 'http.response.status_code': 202 },
  });
  expect(http.parentSpanId).toBeUndefined();
  expect(run).toMatchObject({
    kind: SPAN_KIND.CONSUMER,
    attributes: {
      'agentlink.agent_request.status': 'COMPLETED',
      'agentlink.agent_request.method': 'playbook',
      'agentlink.agent_request.ending': 'written',
    },
    resource: {
      'service.name': 'agentlink-test',
      'service.version': JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version,
    },
  });
  const strategy = trace.find((s) => s.parentSpanId === run.spanId && s.name === 'strategy playbook')!;
  expect(strategy.attributes).toMatchObject({ 'agentlink.strategy.outcome': 'completed' });
  // Every step of the stored trace is a span: the playbook's under its strategy, the worker's own under the run.
  const steps = trace.filter((s) => s.name.startsWith('step '));
  // (The API's trace also begins with an `attempt` step per claim, from the attempt log: bookkeeping, not a run step.)
  const runSteps = record.trace.filter((s) => s.tool !== 'attempt');
  expect(steps.map((s) => s.attributes['agentlink.step.tool']).sort()).toEqual(runSteps.map((s) => s.tool).sort());
  for (const s of steps) expect([strategy.spanId, run.spanId]).toContain(s.parentSpanId);
  expect(steps.filter((s) => s.parentSpanId === strategy.spanId).map((s) => s.name)).toEqual(['step navigate', 'step fill', 'step done']);

  // The rest of the flow is traced by route pattern; probes are not.
  expect(spans.some((s) => s.name === 'GET /api/agent-requests/:requestId')).toBe(true);
  expect(spans.some((s) => s.name === 'POST /api/connections/public_token/exchange')).toBe(true);

  // Nothing secret or user-provided anywhere in what was exported.
  const exported = JSON.stringify(spans.map((s) => s.raw));
  for (const secret of [server.accessToken, server.headers['x-client-secret'], PARAM_VALUE, ACTION, 'user_good', 'sid=']) {
    expect(exported).not.toContain(secret);
  }
  expect(exported).not.toMatch(/sk_sandbox_|public-sandbox-|access-sandbox-|link-sandbox-/);
});
