import type { BrowserContext, Page } from 'playwright-core';

import { ProviderDeclarationFields } from '../../contract/provider-declaration';
import { hashToken } from '../../server/domain/tokens';
import { api, awaitRequest, type Json, type LiveOrg, liveOrg } from '../agent/agent-support';
import { LabelPicker } from '../agent-corpus/label-picker';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { type ParsedObservation, type ScriptedModelServer, startScriptedModelServer } from '../support/scripted-model-server';
import type { RealAppDefinition, RealAppRead, SignInStep } from './real-app';

/**
 * Drives one real app end to end, as its user and an agent would, through AgentLink's public surfaces only: the
 * organization declares the app as its private provider (POST /api/providers), a link token opens the hosted
 * widget, the person signs in on the live view's canvas (clicks and keys through the widget, never on the live page
 * itself; the live page is only looked at to know where to point), the public token is exchanged, and each read is
 * asked twice through POST /api/agent-requests, run by the embedded worker with the label-picking model on loopback.
 * What it returns is measured, never assumed: the test (real-apps.real.test.ts) and the bench (bench/real-apps.bench.ts)
 * both read it.
 */
export interface RealAppServers {
  live: LiveServer;
  model: ScriptedModelServer;
  /** The person's browser (the widget runs here). */
  person: BrowserContext;
  close(): Promise<void>;
}

export async function startRealAppServers(): Promise<RealAppServers> {
  const model = await startScriptedModelServer();
  const live = await startLiveServer({
    worker: true,
    env: { AGENTLINK_MODEL_BASE_URL: model.baseUrl, AGENTLINK_MODEL: 'scripted-label-picker', AGENTLINK_MODEL_API_KEY: 'sk-real-apps' },
  });
  const person = await live.services.browsers.newContext({ viewport: { width: 420, height: 820 } });
  person.setDefaultTimeout(30_000);
  return {
    live,
    model,
    person,
    close: async () => {
      await person.close();
      await live.services.liveSignIn.closeAll();
      await live.services.loginEngine.close();
      await live.close();
      await model.close();
    },
  };
}

export interface FirstObservation {
  /** It holds the read's content marker (the app had drawn what the read is about). */
  ready: boolean;
  chars: number;
  elements: number;
}

export interface ReadOutcome {
  status: string;
  method: string | null;
  /** Requests that reached the model server during the run (router and planner alike). */
  modelCalls: number;
  result: unknown;
  error: { code: string; message: string } | null;
  /** The first page view the model was sent (null when no model ran). */
  firstObservation: FirstObservation | null;
  /** Whether the run was recorded for replay, and why not. */
  recorded: { ok: boolean; reason: string | null };
  /** What the model saw and decided, turn by turn (for a failure's message). */
  log: string[];
  /** The page views the model was sent, in order. */
  views: string[];
}

export interface ReadReport {
  read: RealAppRead;
  first: ReadOutcome;
  second: ReadOutcome;
}

export interface AppReport {
  app: string;
  version: string;
  connected: boolean;
  /** From the last key the person pressed to the widget's "Connected!". */
  msToConnected: number | null;
  signInError: string | null;
  reads: ReadReport[];
  /**
   * After the reads: the outcome of a session check now (POST /api/connections/{id}/check, what the scheduler runs
   * between runs): SIGNED_IN for a live session, or the error code when the check could not run.
   */
  sessionCheck: string | null;
}

/** The servers, and the organization that declared the app being measured. */
export type OrgServers = RealAppServers & { org: LiveOrg };

/**
 * Starts the app, and a new organization declares it (so each measurement starts with no recorded trajectory),
 * connects through the live view and runs each read twice; the app is stopped after.
 */
export async function measureApp(servers: RealAppServers, def: RealAppDefinition): Promise<AppReport> {
  const s: OrgServers = { ...servers, org: await liveOrg(servers.live, `${def.provider.name} Co`) };
  const app = await def.start();
  try {
    const providerId = await declareProvider(s, def, app.baseUrl);
    const report: AppReport = {
      app: def.id,
      version: app.version,
      connected: false,
      msToConnected: null,
      signInError: null,
      reads: [],
      sessionCheck: null,
    };
    let accessToken: string;
    let connectionId: string;
    try {
      const connected = await connectThroughLiveView(s, def, providerId);
      accessToken = connected.accessToken;
      connectionId = connected.connectionId;
      report.connected = true;
      report.msToConnected = connected.msToConnected;
    } catch (err) {
      report.signInError = (err as Error).message.slice(0, 500);
      return report;
    }
    for (const read of def.reads) {
      const first = await runRead(s, read, accessToken, app.baseUrl);
      const second = await runRead(s, read, accessToken, app.baseUrl);
      report.reads.push({ read, first, second });
    }
    const check = await api(s.live, s.org, 'POST', `/api/connections/${connectionId}/check`);
    report.sessionCheck = check.status === 200 ? (check.body.outcome as string) : `${check.status} ${check.body.error?.code}`;
    return report;
  } finally {
    await app.stop();
  }
}

/**
 * Whether the server's provider declaration has a field: `readyWhen` comes with the `ready` branch, and the schema is
 * strict (an unknown field is refused), so it is declared only once the server knows it.
 */
const declares = (field: string) => field in ProviderDeclarationFields.shape;

/** The app as the organization's private provider: its own origin, the sign-in recognised by an element on the page. */
export async function declareProvider(s: OrgServers, def: RealAppDefinition, baseUrl: string): Promise<string> {
  const res = await api(s.live, s.org, 'POST', '/api/providers', {
    name: def.provider.name,
    slug: def.provider.slug,
    category: 'developer',
    homeUrl: `${baseUrl}/`,
    loginUrl: `${baseUrl}/`,
    loginPagePattern: def.provider.loginPagePattern,
    allowedOrigins: ['127.0.0.1'],
    logo: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><rect width="8" height="8" rx="2"/></svg>',
    signedIn: { element: def.provider.signedInElement },
    ...(declares('readyWhen') ? { readyWhen: def.provider.readyWhen } : {}),
  });
  if (res.status !== 201) throw new Error(`declaring ${def.id}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.providerId as string;
}

/** The person opens the widget, signs in on the live view's canvas, and the app exchanges the public token. */
export async function connectThroughLiveView(
  s: OrgServers,
  def: RealAppDefinition,
  providerId: string,
): Promise<{ accessToken: string; connectionId: string; msToConnected: number }> {
  const token = await api(s.live, s.org, 'POST', '/api/link-token', { clientUserId: `${def.id}-user`, providerId });
  if (token.status !== 200) throw new Error(`link token: ${token.status} ${JSON.stringify(token.body)}`);
  const linkToken = token.body.linkToken as string;
  const widget = await s.person.newPage();
  try {
    await widget.goto(`${s.live.baseUrl}/link?token=${encodeURIComponent(linkToken)}`);
    await widget.getByRole('button', { name: 'Continue' }).click();
    await widget.locator('#al-live-canvas').waitFor({ state: 'visible' });
    await widget.locator('#al-live-status[data-code="LIVE"]').waitFor({ state: 'attached' });
    const sessions = await s.live.services.store.repos.linkSessions.listForLinkToken(
      (await s.live.services.store.repos.linkTokens.findByHash(hashToken(linkToken)))!.id,
    );
    const livePage = s.live.services.liveSignIn.inspect(sessions[sessions.length - 1]!.id);
    if (!livePage) throw new Error('no live page');
    const finished = widget.waitForResponse((r) => r.url().endsWith('/live/finish'), { timeout: 60_000 });
    let lastKeyAt = 0;
    for (const step of def.signIn) {
      await personDoes(widget, livePage, step);
      lastKeyAt = Date.now();
    }
    const finish = await finished;
    if (finish.status() !== 200) throw new Error(`live finish: ${finish.status()} ${await finish.text()}`);
    await widget.getByRole('heading', { name: 'Connected!' }).waitFor();
    const msToConnected = Date.now() - lastKeyAt;
    const { success } = (await finish.json()) as { success: { publicToken: string } };
    const exchanged = await api(s.live, s.org, 'POST', '/api/connections/public_token/exchange', { publicToken: success.publicToken });
    if (exchanged.status !== 200) throw new Error(`exchange: ${exchanged.status} ${JSON.stringify(exchanged.body)}`);
    return { accessToken: exchanged.body.access_token as string, connectionId: exchanged.body.connectionId as string, msToConnected };
  } finally {
    await widget.close();
  }
}

/** One person's action on the live view: where `click` points is read off the live page, the click lands on the canvas. */
async function personDoes(widget: Page, livePage: Page, step: SignInStep): Promise<void> {
  if ('type' in step) return widget.keyboard.type(step.type, { delay: 15 });
  if ('press' in step) return widget.keyboard.press(step.press);
  const target = livePage.locator(step.click).first();
  await target.waitFor({ state: 'visible', timeout: 30_000 });
  const box = (await target.boundingBox())!;
  const viewport = livePage.viewportSize()!;
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  // A person can only point at what the live view shows: the page's visible area, scaled onto the canvas.
  if (x < 0 || y < 0 || x > viewport.width || y > viewport.height) {
    throw new Error(
      `${step.click} is outside the live view (${Math.round(x)},${Math.round(y)} on a ${viewport.width}×${viewport.height} page)`,
    );
  }
  const canvas = (await widget.locator('#al-live-canvas').boundingBox())!;
  await widget.mouse.click(canvas.x + (x * canvas.width) / viewport.width, canvas.y + (y * canvas.height) / viewport.height);
}

/** One read through the API, the label-picking model scripted for it; what the run did, as the record says. */
export async function runRead(s: OrgServers, read: RealAppRead, accessToken: string, baseUrl: string): Promise<ReadOutcome> {
  const picker = new LabelPicker(read.steps);
  let firstObservation: FirstObservation | null = null;
  const views: string[] = [];
  let loadingWaits = 0;
  s.model.setScript((turn) => {
    if (turn.observation) views.push(turn.observation.text);
    if (!firstObservation && turn.observation) firstObservation = observed(turn.observation, read);
    // What a person does on an app that has drawn nothing to operate yet, or says it is still loading: wait for it
    // (a model call each), within reason. The label picker alone waits once, then scrolls and gives up.
    const o = turn.observation;
    if (o && (o.elements.length === 0 || LOADING.test(o.text)) && loadingWaits < MAX_LOADING_WAITS && turn.toolNames.includes('wait')) {
      loadingWaits += 1;
      picker.log.push(`the page ${o.elements.length ? 'says it is loading' : 'has nothing to operate yet'}: wait {"seconds":1}`);
      return { tool: 'wait', args: { seconds: 1 } };
    }
    const reply = picker.script(turn);
    // A person does not give up on a slow app after one look: while the patience lasts, wait instead of failing (the
    // picker looks again from the next observation). Each is a model call, counted like any other.
    if ('tool' in reply && reply.tool === 'fail' && loadingWaits < MAX_LOADING_WAITS && turn.toolNames.includes('wait')) {
      loadingWaits += 1;
      picker.log.push(`(not giving up yet: ${String(reply.args.reason)}) wait {"seconds":1}`);
      return { tool: 'wait', args: { seconds: 1 } };
    }
    return reply;
  });
  const callsBefore = s.model.calls;
  const created = await api(s.live, s.org, 'POST', '/api/agent-requests', {
    accessToken,
    action: read.action,
    startingUrl: `${baseUrl}${read.path}`,
    responseFormat: read.responseFormat,
    mode: 'read',
  });
  if (created.status !== 202) {
    const error = created.body.error ?? { code: `HTTP_${created.status}`, message: JSON.stringify(created.body) };
    return { ...NOT_RUN, error: { code: error.code, message: error.message } };
  }
  const record = await awaitFinal(s, created.body.requestId as string);
  const recording = (record.trace as Json[]).find((t) => t.tool === 'record-trajectory');
  return {
    status: record.status,
    method: record.method ?? null,
    modelCalls: s.model.calls - callsBefore,
    result: record.result ?? null,
    error: record.error ?? null,
    firstObservation,
    recorded: { ok: recording?.outcome === 'ok', reason: recording ? (recording.error ?? null) : 'the run did not reach recording' },
    log: picker.log,
    views,
  };
}

/** A line of the page saying it is not done ("Loading Flows", "Loading…"). */
const LOADING = /^(?:\[\d+\] \w+ ')?loading\b/im;
/** Waits the stand-in model spends on a slow app, in all: generous for a loaded machine, within the planner's 25 steps. */
const MAX_LOADING_WAITS = 15;

const NOT_RUN: ReadOutcome = {
  status: 'NOT_CREATED',
  method: null,
  modelCalls: 0,
  result: null,
  error: null,
  firstObservation: null,
  recorded: { ok: false, reason: 'the request was refused' },
  log: [],
  views: [],
};

function observed(o: ParsedObservation, read: RealAppRead): FirstObservation {
  return { ready: o.text.includes(read.content), chars: o.text.length, elements: o.elements.length };
}

async function awaitFinal(s: OrgServers, requestId: string): Promise<Json> {
  const until = Date.now() + 120_000;
  for (;;) {
    const record = await awaitRequest(s.live, s.org, requestId, 20_000);
    if (['COMPLETED', 'FAILED', 'CANCELED', 'TIMED_OUT'].includes(record.status)) return record;
    if (Date.now() > until) throw new Error(`request ${requestId} still ${record.status}`);
  }
}
