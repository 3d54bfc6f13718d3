import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import fc from 'fast-check';
import type { Browser, BrowserContext, Page } from 'playwright-core';

import type { UserAction } from '../../contract/schemas';
import { HandoffRegistry } from '../../server/agent/handoff/handoff-registry';
import { RunHandoff } from '../../server/agent/handoff/run-handoff';
import { UserDoorError } from '../../server/agent/handoff/user-ask';
import { RunAborted } from '../../server/agent/run/errors';
import type { HeldWrite } from '../../server/egress/change-gate';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { openFencedContext } from '../../server/egress/fenced-context';
import { summarizeWrite } from '../../server/egress/write-summary';
import type { ProviderDefinition } from '../../server/providers/provider';
import { startBrowser } from '../support/live-server';

/**
 * The one state machine of a paused run (server/agent/handoff/run-handoff.ts), by property: fast-check generates
 * sequences of what may happen to a run, in any order and timing — the person's Done, Approve, Deny, "I can't do
 * this", closing the widget, the ask expiring, a cancel, the page navigating away or aborting its own held request,
 * the browser lost, the worker process killed, a second ask while one is open, a new write held — and drives the real
 * RunHandoff with real held writes: a page of real Chromium in a context fenced by the real egress proxy, whose gate
 * is the hand-off's approveWrite, posting to a loopback site that counts what it received.
 *
 * The worker's side (the row's conditional updates, the slot, the run clock, the final write) is a model of
 * worker.ts and the repository's updates. After each event, once things settle (bounded), the row's status, its
 * userAction, the slot and the clock agree with the hand-off; at the end each run reaches exactly one final status
 * within bounded time, and every write the site received was approved by the person, once.
 *
 * AGENTLINK_PROPERTY_RUNS sets the number of sequences (default 30, ~20 s); the figure printed is what ran.
 */
jest.setTimeout(600_000);

const RUNS = Number(process.env.AGENTLINK_PROPERTY_RUNS ?? 30);
/**
 * Each agreement must hold within this after an event (a pause or resume is a few ticks; a settle after approval about a
 * second): polled, so it costs only what the settling takes, and far above that so a loaded machine does not fail it.
 */
const SETTLE_MS = 15_000;

let browser: Browser;
let server: http.Server;
let origin = '';
let context: BrowserContext | null = null;
let policy: EgressPolicy;
/** The run the fenced context's gate hands its writes to now. */
let current: Model | null = null;
/** What the site received: write id → times. */
const received = new Map<string, number>();
/** Writes the person approved (by write URL), and what the site received without an approval before it. */
const approved = new Set<string>();
const unapproved: string[] = [];

beforeAll(async () => {
  browser = await startBrowser();
  server = http.createServer((req, res) => {
    if (req.method === 'POST') {
      const url = `${origin}${req.url}`;
      received.set(url, (received.get(url) ?? 0) + 1);
      if (!approved.has(url)) unapproved.push(url);
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end('saved'));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Site</title><main><h1>Notes</h1></main>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  policy = EgressPolicy.forProvider({ name: 'Site', homeUrl: `${origin}/`, allowedOrigins: ['127.0.0.1'] }, 'sandbox');
});

afterAll(async () => {
  await context?.close().catch(() => undefined);
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

/** A fenced context (a new one after the browser was "lost": its context closed), and a fresh page on the site. */
async function freshPage(): Promise<Page> {
  if (!context) {
    context = await openFencedContext(browser, {
      policy,
      onBlocked: () => undefined,
      gate: {
        request: () => null,
        webSocketMessages: null,
        approve: (write, signal) => {
          if (!current) return Promise.resolve('no run');
          const answer = current.handoff.approveWrite(write, signal);
          current.writes.push(answer);
          return answer;
        },
      },
    });
    context.setDefaultTimeout(5_000);
  }
  const page = await context.newPage();
  await page.goto(`${origin}/`);
  return page;
}

const PROVIDER = { providerId: 'prov_site', name: 'Site', allowedOrigins: ['127.0.0.1'] } as unknown as ProviderDefinition;

type Status = 'RUNNING' | 'NEEDS_USER' | 'COMPLETED' | 'FAILED' | 'CANCELED';

/** The worker's side of one run, as worker.ts and the repository's conditional updates do it. */
class Model {
  readonly row: { status: Status; userAction: UserAction | null; owner: string | null; code?: string } = {
    status: 'RUNNING',
    userAction: null,
    owner: 'worker-1',
  };
  parked = false;
  clockStopped = false;
  slots = 1;
  finals = 0;
  ended = false;
  readonly violations: string[] = [];
  readonly controller = new AbortController();
  readonly registry = new HandoffRegistry(4);
  readonly handoff: RunHandoff;
  readonly writes: Promise<unknown>[] = [];

  constructor(
    readonly page: Page,
    ttlMs: number,
  ) {
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    this.handoff = new RunHandoff({
      requestId: `areq_${randomUUID()}`,
      organizationId: 'org_property',
      environment: 'sandbox',
      provider: PROVIDER,
      policy,
      action: 'Save a note',
      approval: 'writes',
      ttlMs,
      page: () => this.page,
      signal: this.controller.signal,
      seat: this.registry,
      summarize: async (write: HeldWrite) => ({ id: 'hw_property', ...summarizeWrite(write, (_n, v) => v) }),
      settleMs: 1_000,
      hooks: {
        pause: async (ask) => {
          await tick();
          if (this.row.owner !== 'worker-1' || this.row.status !== 'RUNNING') return null;
          const action: UserAction = {
            reason: ask.reason,
            message: ask.message,
            since: ask.since.toISOString(),
            expiresAt: ask.expiresAt.toISOString(),
            linkToken: `link-${randomUUID()}`,
            url: 'http://widget/',
            write: ask.write,
          };
          Object.assign(this.row, { status: 'NEEDS_USER', userAction: action });
          return action;
        },
        resume: async () => {
          await tick();
          if (this.row.owner !== 'worker-1' || this.row.status !== 'NEEDS_USER') return false;
          Object.assign(this.row, { status: 'RUNNING', userAction: null });
          return true;
        },
        // As worker.ts: a pause or resume after the run's end counted its slot counts nothing.
        paused: () => {
          if (this.ended) return;
          if (this.parked) this.violations.push('the slot was given back twice');
          this.parked = true;
          this.clockStopped = true;
          this.slots -= 1;
        },
        resumed: async () => {
          await tick();
          if (this.ended) return;
          if (!this.parked) this.violations.push('a slot was taken while the run held one');
          this.parked = false;
          this.clockStopped = false;
          this.slots += 1;
        },
        abort: (reason) => this.controller.abort(reason),
        record: () => undefined,
      },
    });
    this.controller.signal.addEventListener('abort', () => this.end(this.controller.signal.reason));
  }

  /** The run ends: the worker's final write (conditional on its lease), or nothing when its process was killed. */
  end(reason: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.registry.remove(this.handoff);
    if (this.parked) this.parked = false;
    else this.slots -= 1;
    this.clockStopped = false;
    if (reason instanceof RunAborted && reason.kind === 'LEASE_LOST') {
      // The process died: recovery fails the row (failExpired), once, if it is still held.
      if (this.row.status === 'RUNNING' || this.row.status === 'NEEDS_USER') this.final('FAILED', 'USER_ACTION_LOST');
      return;
    }
    if (this.row.owner !== 'worker-1' || !(this.row.status === 'RUNNING' || this.row.status === 'NEEDS_USER')) return;
    if (reason instanceof UserDoorError) this.final('FAILED', reason.code);
    else if (reason instanceof RunAborted && reason.kind === 'CANCELED') this.final('CANCELED', 'CANCELED');
    else this.final('FAILED', 'INTERNAL_ERROR');
  }

  private final(status: Status, code: string): void {
    this.finals += 1;
    Object.assign(this.row, { status, userAction: null, owner: null, code });
  }

  /** What must agree once the run settles; null when it does. */
  disagreement(): string | null {
    const h = this.handoff.current;
    const { status, userAction } = this.row;
    if (this.ended) {
      if (this.finals !== 1) return `${this.finals} final writes`;
      if (status === 'RUNNING' || status === 'NEEDS_USER' || userAction) return `ended but the row is ${status}`;
      if (this.slots !== 0 || this.parked || this.clockStopped) return `ended holding slots ${this.slots}, parked ${this.parked}`;
      return null;
    }
    if (this.violations.length) return this.violations.join('; ');
    const waiting = status === 'NEEDS_USER';
    if (waiting !== !!h) return `row ${status}, hand-off ${h ? 'waiting' : 'working'}`;
    if (waiting && userAction?.linkToken !== h?.linkToken) return 'the row’s userAction is not the open ask';
    if (this.parked !== waiting || this.clockStopped !== waiting) return `row ${status}, slot parked ${this.parked}`;
    if (this.slots !== (waiting ? 0 : 1)) return `row ${status}, ${this.slots} slots held`;
    return null;
  }
}

type Event =
  | 'done'
  | 'approve'
  | 'deny'
  | 'cant'
  | 'close'
  | 'expire'
  | 'cancel'
  | 'write'
  | 'pageAborts'
  | 'navigate'
  | 'pageCloses'
  | 'browserLost'
  | 'killed'
  | 'askCode';

const EVENTS: Event[] = [
  'done',
  'approve',
  'deny',
  'cant',
  'close',
  'expire',
  'cancel',
  'write',
  'pageAborts',
  'navigate',
  'pageCloses',
  'browserLost',
  'killed',
  'askCode',
];

/** Writes and approvals are what most sequences should be about: weighted up. */
const eventArb = fc.oneof(
  { arbitrary: fc.constantFrom<Event>('write', 'approve'), weight: 4 },
  { arbitrary: fc.constantFrom<Event>('askCode', 'done', 'pageAborts', 'navigate'), weight: 2 },
  { arbitrary: fc.constantFrom<Event>(...EVENTS), weight: 2 },
);
const stepArb = fc.record({ event: eventArb, pauseMs: fc.constantFrom(0, 0, 5, 30) });
const sequenceArb = fc.record({ steps: fc.array(stepArb, { minLength: 1, maxLength: 8 }), shortTtl: fc.boolean() });

let writeNo = 0;
let sequences = 0;

async function settled(m: Model, after: string): Promise<void> {
  const until = Date.now() + SETTLE_MS;
  let why = m.disagreement();
  while (why && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    why = m.disagreement();
  }
  if (why) throw new Error(`after ${after}: ${why}`);
}

async function play(m: Model, event: Event): Promise<void> {
  const { handoff, page } = m;
  const open = page.isClosed() ? null : page;
  switch (event) {
    case 'done':
    case 'deny':
      handoff.decide(event);
      return;
    case 'approve': {
      const url = handoff.current?.write?.url;
      if (handoff.current?.reason === 'APPROVAL' && url) approved.add(url);
      if (!handoff.decide('approve') && url) approved.delete(url);
      return;
    }
    case 'cant':
    case 'close': // the widget closed: UserActionLinks.leave is an exit
      handoff.decide('exit');
      return;
    case 'expire':
      await new Promise((resolve) => setTimeout(resolve, 260));
      return;
    case 'cancel':
      m.controller.abort(new RunAborted('CANCELED'));
      return;
    case 'killed':
      m.row.owner = null;
      m.controller.abort(new RunAborted('LEASE_LOST'));
      return;
    case 'askCode':
      m.writes.push(handoff.needsUser({ reason: 'CODE', message: 'Enter the code' }).catch((err) => m.controller.abort(err)));
      return;
    case 'write': {
      const path = `/notes/${++writeNo}`;
      await open
        ?.evaluate((p) => {
          const w = window as unknown as { held?: AbortController[] };
          const c = new AbortController();
          (w.held ??= []).push(c);
          void fetch(p, { method: 'POST', body: `note=${p}`, signal: c.signal })
            .then((r) => r.text())
            .then((t) => document.querySelector('main')?.append(t))
            .catch(() => undefined);
        }, path)
        .catch(() => undefined);
      return;
    }
    case 'pageAborts':
      await open?.evaluate(() => (window as unknown as { held?: AbortController[] }).held?.pop()?.abort()).catch(() => undefined);
      return;
    case 'navigate':
      await open?.goto(`${origin}/?away=${writeNo}`).catch(() => undefined);
      return;
    case 'pageCloses':
      await open?.close().catch(() => undefined);
      return;
    case 'browserLost': {
      const lost = context;
      context = null;
      await lost?.close().catch(() => undefined);
      return;
    }
  }
}

it('ends every request in exactly one final status, with status, userAction, slot and clock agreeing throughout', async () => {
  const started = Date.now();
  await fc.assert(
    fc.asyncProperty(sequenceArb, async ({ steps, shortTtl }) => {
      sequences += 1;
      const m = new Model(await freshPage(), shortTtl ? 250 : 60_000);
      current = m;
      try {
        for (const { event, pauseMs } of steps) {
          await play(m, event);
          if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs));
          await settled(m, event);
        }
        // Whatever is left open, the request is canceled (a person who never comes: expiry does the same, later).
        if (!m.ended) m.controller.abort(new RunAborted('CANCELED'));
        await settled(m, 'the end');
        // Every held write was answered (sent or refused) within bounded time.
        let bound: NodeJS.Timeout | undefined;
        const answered = await Promise.race([
          Promise.all(m.writes).then(() => true),
          new Promise((resolve) => (bound = setTimeout(() => resolve(false), SETTLE_MS))),
        ]);
        // Cleared: a 15 s timer left behind kept the jest worker alive after its last file ("failed to exit gracefully").
        clearTimeout(bound);
        if (!answered) throw new Error('an ask was still open after the run ended');
        if (unapproved.length) throw new Error(`sent without approval: ${unapproved.join(', ')}`);
        for (const [url, times] of received) if (times > 1) throw new Error(`${url} was sent ${times} times`);
      } finally {
        current = null;
        await m.page.close().catch(() => undefined);
      }
    }),
    { numRuns: RUNS, endOnFailure: true },
  );
  process.stdout.write(
    `paused-run property: ${sequences} sequences, 0 failures, ${received.size} writes sent, ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
});
