import { compileResponseFormat } from '../../../contract/response-format';
import type { ProviderDefinition } from '../../providers/catalogue';
import { isProviderLoginPage } from '../../providers/provider';
import type { RunHandoff } from '../handoff/run-handoff';
import { applyStoredDecision } from '../handoff/stored-decision';
import { NO_PERSON, type UserDoor } from '../handoff/user-ask';
import { runHandoffFor } from '../handoff/worker-handoff';
import type { ClaimedRequest } from '../queue/queue';
import { RunClock, withRunClock } from '../run/clock';
import type { RunContext } from '../run/context';
import { RunAborted, RunFailure, untilAborted } from '../run/errors';
import { addUsage, newRunState, pushStep, type RunState, setSecrets } from '../run/state';
import { NO_TELEMETRY, type RunEnd } from '../run/telemetry';
import { browserLost, lostBrowserError, unavailableBackoffMs } from './browser-loss';
import type { WorkerDeps } from './deps';
import { type Final, finalForBlockedNavigation, finalForError, traceWhereItStopped, UNREACHABLE } from './final-status';
import { attemptEnder, keepLease } from './lease';
import { explainNothingRan, type Skipped } from './nothing-ran';
import { openRunBrowser, openStartingUrl, releaseRunBrowser, renewDeadSession, saveSessionBack } from './run-session';

export { RunAborted } from '../run/errors';
export type { WorkerDeps, WorkerSettings } from './deps';

/**
 * The worker: runs claimed agent requests to a final status. For each one it opens a fresh browser context
 * loaded with the connection's unsealed session, fenced to the provider's domains, loads the starting URL,
 * renews a dead session silently when it can, tries the strategies in order (playbook, replay, planner),
 * seals the session back, and writes the outcome, trace, method and model usage. Timeout, cancel, a lost
 * lease and shutdown all abort the run through one AbortController; every path ends in one final write.
 */
/**
 * How long a written run's context waits before it closes, so that the answer to a caller waiting on the request goes
 * out first: a teardown takes this event loop for tens of ms (each page, frame and worker it ends is an event to handle).
 */
const CLOSE_AFTER_ANSWER_MS = 25;
const afterTheAnswer = () => new Promise<void>((resolve) => setTimeout(resolve, CLOSE_AFTER_ANSWER_MS));

/** The connection's stored credentials as strings to mask (both halves: the sign-in name is a credential and PII). */
function storedCredentials(deps: WorkerDeps, connection: Parameters<WorkerDeps['connections']['openCredentials']>[0]): string[] {
  try {
    const c = deps.connections.openCredentials(connection);
    return c ? [c.username, c.password] : [];
  } catch {
    return []; // unreadable credentials cannot be shown to anyone either; silent re-login reports them
  }
}

export class AgentWorker {
  private readonly running = new Map<string, AbortController>();
  private started = false;
  private stopping = false;
  private readonly heartbeatMs: number;
  /** Runs in a row whose browser could not be reached: this worker backs off before claiming again. */
  private unreachable = 0;
  /** Runs waiting for their user: they hold no slot. */
  private parked = 0;
  /** Runs at work again after waiting for their user: slots the queue did not hand out. */
  private resumedAtWork = 0;

  constructor(private readonly deps: WorkerDeps) {
    const leaseMs = deps.settings.leaseSeconds * 1000;
    this.heartbeatMs = deps.settings.heartbeatMs ?? Math.max(100, Math.min(1000, Math.floor(leaseMs / 3)));
  }

  get activeCount(): number {
    return this.running.size;
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.stopping = false;
    this.deps.warm?.open();
    await this.deps.queue.start((claim) => this.execute(claim), {
      concurrency: this.deps.settings.concurrency,
      busy: () => this.resumedAtWork,
    });
  }

  /**
   * Stops claiming, lets running requests finish for up to `graceMs`, then gives the rest back to the queue
   * (PENDING again, the attempt not counted) so another worker runs them.
   */
  async stop(opts: { graceMs?: number } = {}): Promise<void> {
    if (!this.started) return;
    this.stopping = true;
    const stopping = this.deps.queue.stop();
    const deadline = Date.now() + (opts.graceMs ?? 10_000);
    // Runs waiting for their user are not waited for: their person may take minutes.
    while (this.running.size - this.parked > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const controller of this.running.values()) controller.abort(new RunAborted('SHUTDOWN'));
    await stopping;
    await this.deps.warm?.close();
    this.started = false;
  }

  /** Runs waiting for their user in this worker now. */
  get waitingCount(): number {
    return this.parked;
  }

  /**
   * Runs one claimed request: returns when it ends, or when it pauses for its user (its slot is free then; the run goes
   * on in the background and takes a slot again when it resumes). Never throws.
   */
  async execute(claim: ClaimedRequest): Promise<void> {
    let freeSlot: () => void = () => undefined;
    const slotFreed = new Promise<void>((resolve) => (freeSlot = resolve));
    await Promise.race([this.executeRun(claim, freeSlot), slotFreed]);
  }

  private async executeRun(claim: ClaimedRequest, freeSlot: () => void): Promise<void> {
    const { requests: repo, events, clock, settings, queue, logger } = this.deps;
    // The queue's claim answered the row (and logged this attempt); a caller that claimed by itself leaves it to be read here.
    const record = claim.record ?? (await repo.findById(claim.requestId));
    if (!record || record.status !== 'RUNNING' || record.leaseOwner !== claim.owner) return;
    const log = logger.child({ requestId: record.id, attempt: record.attempts });
    const startedMs = Date.now();
    const endAttempt = attemptEnder(repo, record, claim.owner, clock);
    // The run's own clock stops while it waits for its user: its timeout counts working time (run-clock.ts).
    const runClock = new RunClock();
    const deadline = runClock.now() + record.timeoutMs;
    const controller = new AbortController();
    this.running.set(record.id, controller);
    const state: RunState = newRunState(record);
    const telemetry = (this.deps.telemetry ?? NO_TELEMETRY).startRun(record);
    state.telemetry = telemetry;

    const timesOut = () => setTimeout(() => controller.abort(new RunAborted('TIMED_OUT')), Math.max(0, deadline - runClock.now()));
    let timeout = timesOut();
    // The queue hands out this run's first slot; after a pause it takes one itself (and gives it back at the end).
    // `over`: the run's end counted its slot; a pause or resume that comes after (an ask racing a cancel) counts nothing.
    const slot = { fromQueue: true, parked: false, over: false };
    const seat = {
      paused: () => {
        if (slot.over) return;
        clearTimeout(timeout);
        runClock.pause();
        if (slot.fromQueue) {
          slot.fromQueue = false;
          freeSlot();
        } else this.resumedAtWork -= 1;
        slot.parked = true;
        this.parked += 1;
      },
      resumed: async () => {
        await this.takeSlot(controller.signal);
        if (slot.over || !slot.parked) return;
        slot.parked = false;
        this.parked -= 1;
        this.resumedAtWork += 1;
        runClock.resume();
        timeout = timesOut();
      },
    };
    const offCancel = events.onCancelRequested(record.id, () => controller.abort(new RunAborted('CANCELED')));
    const { stages } = state;
    if (claim.claimMs !== undefined) stages.add('claim', claim.claimMs);
    if (record.startedAt) stages.add('wake', record.startedAt.getTime() - record.createdAt.getTime());
    const leaseTerms = { repo, requestId: record.id, owner: claim.owner, clock, leaseSeconds: settings.leaseSeconds, log, stages };
    const stopLease = keepLease({
      ...leaseTerms,
      everyMs: this.heartbeatMs,
      controller,
      // A decision on the open ask taken where the run is not (another process): applied as one taken here.
      onUserDecision: (decision) => {
        const applied = state.handoff ? applyStoredDecision(state.handoff, decision) : false;
        // Said back on the row: the process that stored it answers its caller by this, never by the value merely going.
        void repo
          .settleUserDecision(record.id, claim.owner, decision, applied)
          .catch((err: unknown) => log.warn({ err }, 'settling a stored decision failed'));
      },
    });
    if (record.cancelRequestedAt) controller.abort(new RunAborted('CANCELED'));

    const handoff = (provider: ProviderDefinition) => runHandoffFor(this.deps, state, provider, claim, controller, seat);
    let final: Final;
    try {
      final = await withRunClock(runClock, () => untilAborted(this.run(state, deadline, controller.signal, handoff), controller.signal));
    } catch (err) {
      final = finalForError(err, controller.signal, state, logger);
    }
    runClock.end();
    clearTimeout(timeout);
    stopLease();
    offCancel();
    if (state.handoff) this.deps.handoffs?.registry.remove(state.handoff);
    slot.over = true;
    if (slot.parked) this.parked -= 1;
    else if (!slot.fromQueue) this.resumedAtWork -= 1;
    this.running.delete(record.id);

    // The fence's last refusals go into the trace however the run ended (a failed run is never asked whether it is clean).
    state.integrity.settleReports();
    if (final.status !== 'COMPLETED') await traceWhereItStopped(state, final.error?.code ?? final.status);
    await stages.time('session_seal', () => saveSessionBack(this.deps, state, log));
    // Kept warm only after a clean, finished run nobody took part in: anything else leaves its context to close.
    const reusable =
      final.status === 'COMPLETED' && !controller.signal.aborted && state.integrity.clean && !state.handoff?.asked && !state.approve;
    // Kept warm before the answer; closed after the answer (sealed above), but before any hand-back below.
    const { close } = await stages.time('release', () => releaseRunBrowser(this.deps, state, reusable));

    const abortKind = controller.signal.reason instanceof RunAborted ? controller.signal.reason.kind : null;
    let ending: RunEnd['ending'] = 'not_written';
    const unreachable = final.status === 'FAILED' && final.error?.code === UNREACHABLE;
    this.unreachable = unreachable ? this.unreachable + 1 : 0;
    const lost = !abortKind && final.status === 'FAILED' && !unreachable && browserLost(state);
    try {
      if (unreachable && !abortKind) {
        // Nothing ran: back to the queue, attempt not counted; this slot claims nothing while the browser is away.
        ending = 'released';
        await Promise.all([close(), endAttempt('released')]);
        if (await repo.release(record.id, claim.owner)) await queue.enqueue(record.id).catch(() => undefined);
        const pause = unavailableBackoffMs(this.unreachable);
        log.warn({ pauseMs: pause }, 'the browser could not be reached; request given back');
        for (const until = Date.now() + pause; Date.now() < until && !this.stopping;) await new Promise((r) => setTimeout(r, 100));
        return;
      }
      if (lost && state.changesSent === 0 && record.attempts < settings.maxAttempts) {
        ending = 'released';
        await Promise.all([close(), endAttempt('retried')]);
        if (await repo.retry(record.id, claim.owner)) await queue.enqueue(record.id).catch(() => undefined);
        log.warn({ attempt: record.attempts }, 'the browser went away mid-run before anything was changed; the request runs again');
        return;
      }
      if (lost) final = { status: 'FAILED', error: lostBrowserError(state, settings.maxAttempts) };
      if (abortKind === 'LEASE_LOST') {
        ending = 'lease_lost';
        log.warn('lease lost; another worker owns the request now');
        return;
      }
      if (abortKind === 'SHUTDOWN' && final.status !== 'COMPLETED' && state.handoff?.asked) {
        // The person was part of this run: running it again from the start could ask them again for what they did.
        final = {
          status: 'FAILED',
          error: { code: 'USER_ACTION_LOST', message: 'The worker shut down while the request was with its user; it was not run again.' },
        };
      } else if (abortKind === 'SHUTDOWN' && final.status !== 'COMPLETED') {
        ending = 'released';
        await Promise.all([close(), endAttempt('released')]);
        if (await repo.release(record.id, claim.owner)) await queue.enqueue(record.id).catch(() => undefined);
        log.info('released on shutdown');
        return;
      }
      const completedAt = clock.now();
      const written = await stages.time('outcome_write', () =>
        repo.finish(record.id, claim.owner, {
          status: final.status,
          result: final.status === 'COMPLETED' ? (final.result ?? null) : null,
          error: final.error ?? null,
          warnings: final.status === 'COMPLETED' ? (final.warnings ?? []) : [],
          completedAt,
          executionTimeMs: Date.now() - startedMs,
          trace: state.trace,
          method: state.method,
          modelUsage: state.usage,
        }),
      );
      if (written) {
        ending = 'written';
        events.finished(record.id, record);
      }
      log.info(
        { status: final.status, code: final.error?.code, method: state.method, ms: Date.now() - startedMs },
        'agent request finished',
      );
    } catch (err) {
      log.error({ err }, 'could not write the outcome; the lease will expire and the request be recovered');
    } finally {
      // Counted as the answer goes out (a scrape agrees with the API), then the browser's teardown is awaited.
      const closed = ending === 'written' ? afterTheAnswer().then(close) : close();
      telemetry.end({
        ending,
        status: final.status,
        method: state.method,
        ...(final.error ? { errorCode: final.error.code } : {}),
        durationMs: Date.now() - startedMs,
        stages: stages.durations(),
      });
      await closed;
    }
  }

  /** Waits until this worker runs fewer requests than its concurrency (a run coming back from its user). */
  private async takeSlot(signal: AbortSignal): Promise<void> {
    const atWork = () => this.running.size - this.parked;
    while (atWork() >= this.deps.settings.concurrency && !signal.aborted) await new Promise((r) => setTimeout(r, 50));
  }

  private async run(
    state: RunState,
    deadline: number,
    signal: AbortSignal,
    handoffFor: (provider: ProviderDefinition) => RunHandoff | null,
  ): Promise<Final> {
    const { connections, providers } = this.deps;
    const { record } = state;
    const connection = await connections.findForRun(record.connectionId);
    if (!connection || connection.status === 'REVOKED')
      throw new RunFailure('CONNECTION_REVOKED', 'The connection was revoked before the request ran.');
    if (connection.status === 'LOGIN_REQUIRED') {
      throw new RunFailure(
        'CONNECTION_LOGIN_REQUIRED',
        'The provider session of this connection ended; send the user through the connect flow again (update mode).',
      );
    }
    const provider = await providers.find(record.providerId, record);
    if (!provider) throw new RunFailure('INTERNAL_ERROR', `Provider ${record.providerId} is not in the catalogue.`);
    setSecrets(state, storedCredentials(this.deps, connection));
    const handoff = handoffFor(provider);
    state.handoff = handoff ?? undefined;
    const door: UserDoor = handoff ?? NO_PERSON;
    if (handoff && record.approval) state.approve = handoff.approveWrite;

    let page = await openRunBrowser(this.deps, state, connection, provider, deadline, signal);
    await openStartingUrl(state, page, record.startingUrl);
    if (isProviderLoginPage(provider, new URL(page.url())))
      page = await renewDeadSession(this.deps, state, connection, provider, deadline, signal, door);

    const ctx: RunContext = {
      requestId: record.id,
      owner: { organizationId: record.organizationId, environment: record.environment },
      action: record.action,
      startingUrl: record.startingUrl,
      playbook: record.playbook ?? null,
      parameters: record.parameters,
      responseFormat: record.responseFormat,
      mode: record.mode,
      resultSchema: compileResponseFormat(record.responseFormat),
      provider,
      context: state.context!,
      page,
      signal,
      navigationBlocked: state.navigationBlocked.signal,
      deadline,
      record: (step) => pushStep(state, step),
      integrity: state.integrity,
      secrets: state.secrets,
      needsUser: (ask) => door.needsUser(ask),
      whileWaiting: () => door.whileWaiting(),
    };
    const skipped: Skipped[] = [];
    for (const strategy of this.deps.strategies) {
      signal.throwIfAborted();
      const ended = state.telemetry?.strategy(strategy.method);
      const outcome = await state.stages
        .time('steps', () => strategy.run(ctx))
        .catch((err: unknown) => {
          ended?.('error');
          throw err;
        });
      ended?.(outcome.status);
      state.usage = addUsage(state.usage, outcome.usage);
      if (outcome.status === 'not_applicable') {
        skipped.push({
          method: strategy.method,
          reason: outcome.reason,
          ...(outcome.details === undefined ? {} : { details: outcome.details }),
        });
        continue;
      }
      // "No model" means the planner never ran: no method to report.
      if (!(outcome.status === 'failed' && outcome.code === 'MODEL_NOT_CONFIGURED')) state.method = strategy.method;
      if (outcome.status === 'completed') return { status: 'COMPLETED', result: outcome.result, warnings: outcome.warnings ?? [] };
      if (state.blockedNavigation) return finalForBlockedNavigation(state, provider, outcome);
      // Without a model, say what the earlier ways found (the playbook that matched and the parameter it lacked …).
      if (outcome.status === 'failed' && outcome.code === 'MODEL_NOT_CONFIGURED')
        return { status: 'FAILED', error: explainNothingRan({ skipped, provider }) };
      const details = outcome.details;
      return {
        status: 'FAILED',
        error: { code: outcome.code, message: outcome.message, ...(details === undefined ? {} : { details }) },
      };
    }
    if (!this.deps.settings.modelConfigured) return { status: 'FAILED', error: explainNothingRan({ skipped, provider }) };
    return {
      status: 'FAILED',
      error: {
        code: 'NO_STRATEGY',
        message: 'No way of running this action applies.',
        details: { skipped: skipped.map(({ method, reason }) => ({ method, reason })) },
      },
    };
  }
}
