import type { BrowserContext, Page } from 'playwright-core';
import type { Logger } from 'pino';
import { compileResponseFormat } from '../../contract/response-format';
import { sessionAad } from '../domain/connections.service';
import type { ProviderDefinition } from '../providers/catalogue';
import { isProviderLoginPage } from '../providers/provider';
import type { Services } from '../services';
import type { AgentRequestError, AgentRequestRecord, AgentRequestStatus, ConnectionRecord } from '../store';
import { type BlockedRequest, installNetworkGuard } from './network-guard';
import { AgentTimeoutError } from './result/errors';
import type { ClaimedRequest } from './queue/queue';
import type { ExecutionMethod, ExecutionStrategy, ModelUsage, RunContext, TraceStep } from './run-context';
import type { SilentRelogin } from './silent-relogin';
import { errorText, failureScreenshot, pageUrl } from './trace';

/**
 * The worker: runs claimed agent requests to a final status. For each one it opens a fresh browser context
 * loaded with the connection's unsealed session, fenced to the provider's domains, loads the starting URL,
 * renews a dead session silently when it can, tries the strategies in order (playbook, replay, planner),
 * seals the session back, and writes the outcome, trace, method and model usage. Timeout, cancel, a lost
 * lease and shutdown all abort the run through one AbortController; every path ends in one final write.
 */
export interface WorkerOptions {
  services: Services;
  logger: Logger;
  /** Tried in order; the first that does not answer not_applicable decides. */
  strategies: ExecutionStrategy[];
  relogin?: SilentRelogin;
  /** Lease renewal and cancel polling period (default: a third of the lease, at most 1 s). */
  heartbeatMs?: number;
}

type AbortKind = 'TIMED_OUT' | 'CANCELED' | 'LEASE_LOST' | 'SHUTDOWN';

export class RunAborted extends Error {
  constructor(readonly kind: AbortKind) {
    super(
      kind === 'TIMED_OUT'
        ? 'the agent request ran past its timeout'
        : kind === 'CANCELED'
          ? 'the agent request was canceled'
          : kind === 'LEASE_LOST'
            ? 'this worker lost the lease on the request'
            : 'the worker is shutting down',
    );
    this.name = 'RunAborted';
  }
}

interface Final {
  status: Exclude<AgentRequestStatus, 'PENDING' | 'RUNNING'>;
  result?: unknown;
  error?: AgentRequestError;
}

interface RunState {
  record: AgentRequestRecord;
  trace: TraceStep[];
  method: ExecutionMethod | null;
  usage: ModelUsage | null;
  context?: BrowserContext;
  page?: Page;
  blockedNavigation?: BlockedRequest;
  /** The provider session is dead: do not seal this context's state back. */
  sessionDead: boolean;
}

const MAX_TRACE_STEPS = 500;
const CLOSE_TIMEOUT_MS = 5000;

function addUsage(a: ModelUsage | null, b: ModelUsage | undefined): ModelUsage | null {
  if (!b) return a;
  return {
    calls: (a?.calls ?? 0) + b.calls,
    promptTokens: (a?.promptTokens ?? 0) + b.promptTokens,
    completionTokens: (a?.completionTokens ?? 0) + b.completionTokens,
  };
}

/** Rejects as soon as the signal aborts, whatever `work` is doing (a strategy that ignores the signal cannot hold the run). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

class RunFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

export class AgentWorker {
  private readonly running = new Map<string, AbortController>();
  private started = false;
  private stopping = false;
  private readonly heartbeatMs: number;

  constructor(private readonly opts: WorkerOptions) {
    const leaseMs = opts.services.config.worker.leaseSeconds * 1000;
    this.heartbeatMs = opts.heartbeatMs ?? Math.max(100, Math.min(1000, Math.floor(leaseMs / 3)));
  }

  get activeCount(): number {
    return this.running.size;
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.stopping = false;
    await this.opts.services.queue.start((claim) => this.execute(claim), { concurrency: this.opts.services.config.worker.concurrency });
  }

  /**
   * Stops claiming, lets running requests finish for up to `graceMs`, then gives the rest back to the queue
   * (PENDING again, the attempt not counted) so another worker runs them.
   */
  async stop(opts: { graceMs?: number } = {}): Promise<void> {
    if (!this.started) return;
    this.stopping = true;
    const stopping = this.opts.services.queue.stop();
    const deadline = Date.now() + (opts.graceMs ?? 10_000);
    while (this.running.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const controller of this.running.values()) controller.abort(new RunAborted('SHUTDOWN'));
    await stopping;
    this.started = false;
  }

  /** Runs one claimed request to its end. Never throws. */
  async execute(claim: ClaimedRequest): Promise<void> {
    const { services, logger } = this.opts;
    const repo = services.store.repos.agentRequests;
    const record = await repo.findById(claim.requestId);
    if (!record || record.status !== 'RUNNING' || record.leaseOwner !== claim.owner) return;
    const log = logger.child({ requestId: record.id, attempt: record.attempts });
    const startedMs = Date.now();
    const deadline = startedMs + record.timeoutMs;
    const controller = new AbortController();
    this.running.set(record.id, controller);
    const state: RunState = { record, trace: [], method: null, usage: null, sessionDead: false };

    const timeout = setTimeout(() => controller.abort(new RunAborted('TIMED_OUT')), record.timeoutMs);
    const offCancel = services.agentEvents.onCancelRequested(record.id, () => controller.abort(new RunAborted('CANCELED')));
    let beating = false;
    const heartbeat = setInterval(() => {
      if (beating || controller.signal.aborted) return;
      beating = true;
      void (async () => {
        const leaseUntil = new Date(services.clock.now().getTime() + services.config.worker.leaseSeconds * 1000);
        if (!(await repo.renew(record.id, claim.owner, leaseUntil))) controller.abort(new RunAborted('LEASE_LOST'));
        else if (await repo.cancelRequested(record.id)) controller.abort(new RunAborted('CANCELED'));
      })()
        .catch((err) => log.warn({ err }, 'lease renewal failed'))
        .finally(() => {
          beating = false;
        });
    }, this.heartbeatMs);
    if (record.cancelRequestedAt) controller.abort(new RunAborted('CANCELED'));

    let final: Final;
    try {
      final = await untilAborted(this.run(state, deadline, controller.signal), controller.signal);
    } catch (err) {
      final = this.finalForError(err, controller.signal, state);
    }
    clearTimeout(timeout);
    clearInterval(heartbeat);
    offCancel();
    this.running.delete(record.id);

    // A failed run gets a screenshot of where it stopped, if no step took one already.
    if (final.status !== 'COMPLETED' && state.page && !state.trace.some((s) => s.screenshot)) {
      const screenshot = await failureScreenshot(state.page);
      if (screenshot) {
        this.push(state, { tool: 'end', target: final.error?.code ?? final.status, url: pageUrl(state.page), durationMs: 0, outcome: 'error', screenshot });
      }
    }
    await this.sealSession(state, log);
    if (state.context) await Promise.race([state.context.close().catch(() => undefined), new Promise((r) => setTimeout(r, CLOSE_TIMEOUT_MS))]);

    const abortKind = controller.signal.reason instanceof RunAborted ? controller.signal.reason.kind : null;
    try {
      if (abortKind === 'LEASE_LOST') {
        log.warn('lease lost; another worker owns the request now');
        return;
      }
      if (abortKind === 'SHUTDOWN' && final.status !== 'COMPLETED') {
        if (await repo.release(record.id, claim.owner)) await services.queue.enqueue(record.id).catch(() => undefined);
        log.info('released on shutdown');
        return;
      }
      const completedAt = services.clock.now();
      const written = await repo.finish(record.id, claim.owner, {
        status: final.status,
        result: final.status === 'COMPLETED' ? (final.result ?? null) : null,
        error: final.error ?? null,
        completedAt,
        executionTimeMs: Date.now() - startedMs,
        trace: state.trace,
        method: state.method,
        modelUsage: state.usage,
      });
      if (written) services.agentEvents.finished(record.id);
      log.info({ status: final.status, code: final.error?.code, method: state.method, ms: Date.now() - startedMs }, 'agent request finished');
    } catch (err) {
      log.error({ err }, 'could not write the outcome; the lease will expire and the request be recovered');
    }
  }

  private finalForError(err: unknown, signal: AbortSignal, state: RunState): Final {
    const reason = signal.aborted ? signal.reason : err;
    if (reason instanceof RunAborted) {
      if (reason.kind === 'TIMED_OUT') {
        return { status: 'TIMED_OUT', error: { code: 'TIMED_OUT', message: `The request did not finish within its timeout of ${state.record.timeoutMs} ms.` } };
      }
      if (reason.kind === 'CANCELED') return { status: 'CANCELED', error: { code: 'CANCELED', message: 'The request was canceled while it ran.' } };
      return { status: 'FAILED', error: { code: 'WORKER_LOST', message: reason.message } };
    }
    // A strategy's own deadline guard (server/agent/result/errors.ts) may fire a moment before our timer.
    if (err instanceof AgentTimeoutError) {
      return { status: 'TIMED_OUT', error: { code: 'TIMED_OUT', message: `The request did not finish within its timeout of ${state.record.timeoutMs} ms.` } };
    }
    if (err instanceof RunFailure) {
      return { status: 'FAILED', error: { code: err.code, message: err.message, ...(err.details === undefined ? {} : { details: err.details }) } };
    }
    this.opts.logger.error({ err, requestId: state.record.id }, 'agent run crashed');
    return { status: 'FAILED', error: { code: 'INTERNAL_ERROR', message: `The run stopped on an unexpected error: ${errorText(err)}` } };
  }

  private push(state: RunState, step: TraceStep) {
    if (state.trace.length < MAX_TRACE_STEPS) state.trace.push(step);
  }

  /** Times one worker-level step into the trace. */
  private async step<T>(state: RunState, tool: string, target: string, fn: () => Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      const v = await fn();
      this.push(state, { tool, target, url: pageUrl(state.page), durationMs: Math.round(performance.now() - t0), outcome: 'ok' });
      return v;
    } catch (err) {
      this.push(state, { tool, target, url: pageUrl(state.page), durationMs: Math.round(performance.now() - t0), outcome: 'error', error: errorText(err) });
      throw err;
    }
  }

  private async run(state: RunState, deadline: number, signal: AbortSignal): Promise<Final> {
    const { services } = this.opts;
    const { record } = state;
    const connection = await services.store.repos.connections.findById(record.connectionId);
    if (!connection || connection.status === 'REVOKED') throw new RunFailure('CONNECTION_REVOKED', 'The connection was revoked before the request ran.');
    if (connection.status === 'LOGIN_REQUIRED') {
      throw new RunFailure('CONNECTION_LOGIN_REQUIRED', 'The provider session of this connection ended; send the user through the connect flow again (update mode).');
    }
    const provider = services.catalogue.get(record.providerId, record.environment);
    if (!provider) throw new RunFailure('INTERNAL_ERROR', `Provider ${record.providerId} is not in the catalogue.`);

    let storageState: Awaited<ReturnType<BrowserContext['storageState']>> | undefined;
    if (connection.sealedSession) {
      try {
        storageState = JSON.parse(services.vault.open(connection.sealedSession, sessionAad(connection.id)));
      } catch {
        throw new RunFailure('SESSION_UNREADABLE', 'The stored session of this connection could not be opened (was the encryption key changed?).');
      }
    }
    signal.throwIfAborted();
    const context = await services.browsers.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US', ...(storageState ? { storageState } : {}) });
    state.context = context;
    if (signal.aborted) throw signal.reason;
    await installNetworkGuard(context, {
      provider,
      environment: record.environment,
      mainFrame: () => state.page?.mainFrame(),
      onBlocked: (b) => {
        if (b.mainFrameNavigation && !state.blockedNavigation) state.blockedNavigation = b;
        this.push(state, {
          tool: b.mainFrameNavigation ? 'navigate' : 'request',
          target: `${b.resourceType} ${b.url.slice(0, 300)}`,
          url: pageUrl(state.page),
          durationMs: 0,
          outcome: 'blocked',
          error: `blocked: ${b.reason}`,
        });
      },
    });
    const page = await context.newPage();
    state.page = page;
    const stepTimeout = () => Math.max(1000, Math.min(20_000, deadline - Date.now()));
    page.setDefaultTimeout(stepTimeout());
    page.setDefaultNavigationTimeout(stepTimeout());

    await this.open(state, page, record.startingUrl);
    if (isProviderLoginPage(provider, new URL(page.url()))) await this.renewSession(state, connection, provider, page);

    const ctx: RunContext = {
      requestId: record.id,
      owner: { organizationId: record.organizationId, environment: record.environment },
      action: record.action,
      startingUrl: record.startingUrl,
      parameters: record.parameters,
      responseFormat: record.responseFormat,
      resultSchema: compileResponseFormat(record.responseFormat),
      provider,
      context,
      page,
      signal,
      deadline,
      record: (step) => this.push(state, step),
    };
    const skipped: { method: ExecutionMethod; reason: string }[] = [];
    for (const strategy of this.opts.strategies) {
      signal.throwIfAborted();
      const outcome = await strategy.run(ctx);
      state.usage = addUsage(state.usage, outcome.usage);
      if (outcome.status === 'not_applicable') {
        skipped.push({ method: strategy.method, reason: outcome.reason });
        continue;
      }
      // "No model" means the planner never ran: no method to report.
      if (!(outcome.status === 'failed' && outcome.code === 'MODEL_NOT_CONFIGURED')) state.method = strategy.method;
      if (outcome.status === 'completed') return { status: 'COMPLETED', result: outcome.result };
      if (state.blockedNavigation) {
        const b = state.blockedNavigation;
        return {
          status: 'FAILED',
          error: { code: 'NAVIGATION_BLOCKED', message: `The run tried to leave ${provider.name}: ${b.url} was blocked (${b.reason}).`, details: { url: b.url, cause: { code: outcome.code, message: outcome.message } } },
        };
      }
      return { status: 'FAILED', error: { code: outcome.code, message: outcome.message, ...(outcome.details === undefined ? {} : { details: outcome.details }) } };
    }
    if (!services.config.model) {
      return {
        status: 'FAILED',
        error: {
          code: 'MODEL_NOT_CONFIGURED',
          message:
            'No playbook or recorded replay covers this action, and no model is configured for the planner. Configure an ' +
            'OpenAI-compatible endpoint with AGENTLINK_MODEL_BASE_URL (e.g. https://api.openai.com/v1), AGENTLINK_MODEL ' +
            '(e.g. gpt-4o-mini) and AGENTLINK_MODEL_API_KEY, then restart AgentLink.',
          details: { skipped },
        },
      };
    }
    return { status: 'FAILED', error: { code: 'NO_STRATEGY', message: 'No way of running this action applies.', details: { skipped } } };
  }

  private async open(state: RunState, page: Page, url: string) {
    try {
      await this.step(state, 'navigate', 'starting URL', () => page.goto(url, { waitUntil: 'domcontentloaded' }));
    } catch (err) {
      if (state.blockedNavigation) {
        const b = state.blockedNavigation;
        throw new RunFailure('NAVIGATION_BLOCKED', `Loading the starting URL led outside the provider: ${b.url} was blocked (${b.reason}).`, { url: b.url });
      }
      throw new RunFailure('STARTING_URL_UNREACHABLE', `The starting URL could not be loaded: ${errorText(err)}`);
    }
  }

  /** The starting URL landed on the sign-in page: log in again from the sealed credentials, or give up. */
  private async renewSession(state: RunState, connection: ConnectionRecord, provider: ProviderDefinition, page: Page) {
    const { services } = this.opts;
    const { record } = state;
    let reason = 'no credentials are stored for silent re-login';
    const credentials = this.opts.relogin ? services.connections.openCredentials(connection) : null;
    if (!this.opts.relogin) reason = 'silent re-login is not available';
    if (credentials && this.opts.relogin) {
      const relogin = this.opts.relogin;
      const outcome = await this.step(state, 'relogin', `${provider.name} sign-in with the stored credentials`, async () => {
        const r = await relogin.relogin({ requestId: record.id, provider, organizationId: record.organizationId, environment: record.environment, credentials });
        if (!r.ok) throw new Error(r.reason);
        return r;
      }).catch((err: unknown) => ({ ok: false as const, reason: errorText(err) }));
      if (outcome.ok) {
        await state.context!.clearCookies();
        await state.context!.addCookies(outcome.storageState.cookies);
        // Sealed at once: even if the run fails later, the connection keeps the fresh session.
        await services.store.repos.connections.setSession(connection.id, services.vault.seal(JSON.stringify(outcome.storageState), sessionAad(connection.id)), services.clock.now());
        await this.open(state, page, record.startingUrl);
        if (!isProviderLoginPage(provider, new URL(page.url()))) return;
        reason = 'the provider still shows its sign-in page after re-login';
      } else {
        reason = outcome.reason;
      }
    }
    state.sessionDead = true;
    await services.connections.markLoginRequired(connection.id);
    throw new RunFailure(
      'CONNECTION_LOGIN_REQUIRED',
      `The ${provider.name} session of this connection ended and could not be renewed silently (${reason}); the connection is now LOGIN_REQUIRED. Send the user through the connect flow again (update mode).`,
    );
  }

  /** Seals the context's session back onto the connection so it stays fresh (not when it is dead). */
  private async sealSession(state: RunState, log: Logger) {
    const { services } = this.opts;
    if (!state.context || state.sessionDead) return;
    try {
      const snapshot = await Promise.race([
        state.context.storageState(),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('storageState timed out')), CLOSE_TIMEOUT_MS)),
      ]);
      const now = services.clock.now();
      const id = state.record.connectionId;
      const current = await services.store.repos.connections.findById(id);
      if (!current || current.status !== 'ACTIVE') return;
      await services.store.repos.connections.setSession(id, services.vault.seal(JSON.stringify(snapshot), sessionAad(id)), now);
      await services.store.repos.connections.touch(id, now);
    } catch (err) {
      log.warn({ err: errorText(err) }, 'could not seal the session back');
    }
  }
}
