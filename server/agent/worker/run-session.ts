import type { Logger } from 'pino';
import type { Page } from 'playwright-core';

import { clearHttpCache } from '../../browser/http-cache';
import { captureSession, readyForCapture, restoreSessionStorage } from '../../browser/session-capture';
import { sessionDigest } from '../../browser/session-digest';
import { boundSession, type ProviderSession, SESSION_MAX_BYTES } from '../../browser/session-format';
import { EgressPolicy } from '../../egress/egress-policy';
import { openPage } from '../../egress/fenced-context';
import type { ProviderDefinition } from '../../providers/catalogue';
import { isProviderLoginPage } from '../../providers/provider';
import type { ConnectionRecord } from '../../store';
import { NO_PERSON, type UserDoor, UserDoorError } from '../handoff/user-ask';
import { runNow } from '../run/clock';
import type { RunPort } from '../run/context-wiring';
import { RunFailure } from '../run/errors';
import { blockedStep, blockReporter, judgeUnfinishedMessages } from '../run/network-guard';
import { refusalReports } from '../run/refusal-join';
import { pushStep, type RunState, timedStep } from '../run/state';
import { errorText, pageUrl } from '../run/trace';
import { watchTabs } from '../tabs/run-tabs';
import type { WorkerDeps } from './deps';
import { openKeyedContext } from './keyed-context';
import { deviceForRun, sessionFence } from './session-presence';
import { warmKey } from './warm-contexts';

/**
 * The provider session's side of a run: a fresh browser context that presents the connection's device, leaves
 * through its exit, is loaded with its unsealed session and fenced to the provider's domains; the starting URL, a
 * silent re-login when the session died, and the session sealed back at the end. Every session write goes through
 * the connection service, which writes only while the connection is still ACTIVE (a revoke during the run wins).
 */
type SessionDeps = Pick<WorkerDeps, 'connections' | 'browsers' | 'relogin' | 'warm' | 'signing'>;

// How a connection presents itself (its device, its exit, its session): shared with health checks, kept in its own file.
export { deviceForRun, sessionFence } from './session-presence';

const CLOSE_TIMEOUT_MS = 5000;

/** Opens the run's context and page (kept on `state` so the worker can screenshot and close them). */
export async function openRunBrowser(
  deps: SessionDeps,
  state: RunState,
  connection: ConnectionRecord,
  provider: ProviderDefinition,
  deadline: number,
  signal: AbortSignal,
): Promise<Page> {
  let session: ProviderSession | null;
  try {
    session = deps.connections.openSession(connection);
    state.exitProxy = deps.connections.openExitProxy(connection);
  } catch {
    throw new RunFailure(
      'SESSION_UNREADABLE',
      'The stored session or exit proxy of this connection could not be opened (was the encryption key changed?).',
    );
  }
  signal.throwIfAborted();
  state.device = await state.stages.time('device', () => deviceForRun(deps, connection));
  signal.throwIfAborted();
  return openSessionContext(deps, state, provider, session, deadline, signal);
}

/** A fenced context presenting the run's device and exit, loaded with `session`, and its page (on `state`). */
async function openSessionContext(
  deps: SessionDeps,
  state: RunState,
  provider: ProviderDefinition,
  session: ProviderSession | null,
  deadline: number,
  signal: AbortSignal,
): Promise<Page> {
  const policy = EgressPolicy.forProvider(provider, state.record.environment);
  const providerOrigin = (origin: string) => policy.checkUrl(origin).ok;
  state.providerOrigin = providerOrigin;
  state.sessionDigest = session ? sessionDigest(session) : undefined;
  // Every blocked request is listed; only one the run caused taints it (run-integrity.ts, block-cause.ts): the page's
  // own background requests to other hosts (analytics, fonts, a vendor's catalogue) are listed as noise.
  const report = blockReporter(
    (b, cause) => {
      if (b.mainFrameNavigation && !state.blockedNavigation) {
        state.blockedNavigation = b;
        state.navigationBlocked.abort(b);
      }
      pushStep(state, blockedStep(b, cause, pageUrl(state.page)));
    },
    (b) => state.integrity.blockedRequest(b),
  );
  // The proxy's refusals and the page's view of them, told once each (refusal-join.ts).
  const refusals = refusalReports(report, state.integrity, state.mode);
  const port: RunPort = {
    onBlocked: (b) => {
      if (b.kind === 'upstream') state.upstreamFailure ??= b.reason;
      refusals.proxy(b);
    },
    onChangeSent: () => {
      state.changesSent += 1;
    },
    report: refusals.page,
    mainFrame: () => state.page?.mainFrame(),
  };
  const device = state.device ?? null;
  const exitProxy = state.exitProxy ?? null;
  const { record } = state;
  // Web Bot Auth: signed only where the organization and the provider both opted in (read now: a change applies to the next run).
  const signer = (await deps.signing?.signerFor(record, provider)) ?? null;
  // A run whose writes wait for its person never shares a context: its gate is that person's answers.
  const key =
    deps.warm?.enabled && state.sessionDigest && !state.approve
      ? warmKey({
          connectionId: record.connectionId,
          environment: record.environment,
          mode: state.mode,
          provider,
          device,
          exitProxy,
          signed: !!signer,
        })
      : null;
  const fresh = () =>
    openKeyedContext(deps.browsers, {
      provider,
      policy,
      key: key ?? '',
      connectionId: record.connectionId,
      mode: state.mode,
      approve: state.approve,
      port,
      fence: sessionFence(device, exitProxy, session, providerOrigin, signer),
      opened: (context) => (state.context = context), // closed with the run's, should what follows fail
    });
  const opened = performance.now();
  if (key) {
    // The next run of this key may get its context opened ahead, as this run ends (warm-contexts.ts, fresh mode).
    const { connectionId } = record;
    const { mode } = state;
    state.reopen = async (sealed) => {
      const ahead = await openKeyedContext(deps.browsers, {
        provider,
        policy,
        key,
        connectionId,
        mode,
        fence: sessionFence(device, exitProxy, sealed, providerOrigin, signer),
      });
      ahead.page = await openPage(ahead.context).catch(async (err: unknown) => {
        await ahead.context.close().catch(() => undefined);
        throw err;
      });
      return ahead;
    };
  }
  if (key) await deps.warm!.prepared(key);
  let warm = (key && deps.warm!.take(key, state.sessionDigest!)) || null;
  let page: Page | null = null;
  // A context an earlier run used (reuse mode), rather than one opened for this run or ahead of it (fresh mode).
  let reused = false;
  if (warm) {
    reused = !deps.warm!.fresh;
    // From here on the context's fence reports to this run, and refuses what this run's mode refuses.
    warm.wiring.attach(port);
    state.warm = warm;
    state.context = warm.context;
    if (signal.aborted) throw signal.reason;
    // A kept context the browser lost meanwhile is no reason to fail the run: a fresh one is opened instead.
    const prepared = warm.page && !warm.page.isClosed() ? warm.page : null;
    page = await (prepared ? Promise.resolve(prepared) : openPage(warm.context))
      // A context kept from an earlier run (reuse) starts this one with no answer that run cached.
      .then(async (p) => (deps.warm!.fresh ? p : clearHttpCache(p).then(() => p)))
      .catch(async () => {
        await closeRunBrowser(state);
        return null;
      });
  }
  if (!page) {
    reused = false;
    warm = await fresh();
    warm.wiring.attach(port);
    state.warm = warm;
    state.context = warm.context;
    if (signal.aborted) throw signal.reason;
    page = await openPage(warm.context);
  }
  state.page = page;
  // A context opened for this run (not one an earlier run used) is watched from its first document: its session can
  // then be read back by DevTools alone (session-capture.ts).
  readyForCapture(page, reused ? undefined : { loadedOrigins: (session?.origins ?? []).map((o) => o.origin) });
  state.stages.add('context', performance.now() - opened);
  // Judged at the run's end with what its pages left unfinished on a socket still open (read mode: a taint).
  judgeUnfinishedMessages(state.integrity, state.context!);
  // sessionStorage is the tab's: written into this page, for the provider's origins only, before it goes anywhere.
  if (session) await state.stages.time('session_restore', () => restoreSessionStorage(page, session, providerOrigin));
  // Tabs the pages open are tracked from the start; state.page follows the current tab (failure screenshot, the refusals' top frame).
  watchTabs(page, policy).onSwitch((current) => {
    state.page = current;
  });
  const stepTimeout = () => Math.max(1000, Math.min(20_000, deadline - runNow()));
  page.setDefaultTimeout(stepTimeout());
  page.setDefaultNavigationTimeout(stepTimeout());
  return page;
}

export async function openStartingUrl(state: RunState, page: Page, url: string) {
  try {
    await state.stages.time('navigation', () =>
      timedStep(state, 'navigate', 'starting URL', () => page.goto(url, { waitUntil: 'domcontentloaded' })),
    );
  } catch (err) {
    if (state.upstreamFailure) {
      throw new RunFailure(
        'UPSTREAM_PROXY_FAILED',
        `The starting URL could not be loaded through the connection's exit: ${state.upstreamFailure}.`,
      );
    }
    if (state.blockedNavigation) {
      const b = state.blockedNavigation;
      throw new RunFailure('NAVIGATION_BLOCKED', `Loading the starting URL led outside the provider: ${b.url} was blocked (${b.reason}).`, {
        url: b.url,
      });
    }
    throw new RunFailure('STARTING_URL_UNREACHABLE', `The starting URL could not be loaded: ${errorText(err)}`);
  }
}

/**
 * The starting URL landed on the sign-in page: log in again with the connection's passkey or its sealed credentials
 * (as the connection's device, through its exit) and carry on in a fresh context loaded with the renewed session,
 * whose page is returned; or give up (LOGIN_REQUIRED).
 */
export async function renewDeadSession(
  deps: SessionDeps,
  state: RunState,
  connection: ConnectionRecord,
  provider: ProviderDefinition,
  deadline: number,
  signal: AbortSignal,
  door: UserDoor = NO_PERSON,
): Promise<Page> {
  const { record } = state;
  let reason = 'no credentials or passkey are stored for silent re-login';
  const credentials = deps.relogin ? deps.connections.openCredentials(connection) : null;
  const passkey = !!connection.sealedPasskey;
  if (!deps.relogin) reason = 'silent re-login is not available';
  if ((credentials || passkey) && deps.relogin) {
    const relogin = deps.relogin;
    const held = passkey
      ? credentials
        ? "the connection's passkey, else the stored credentials"
        : "the connection's passkey"
      : 'the stored credentials';
    const outcome = await timedStep(state, 'relogin', `${provider.name} sign-in with ${held}`, async () => {
      const r = await relogin.relogin({
        requestId: record.id,
        provider,
        organizationId: record.organizationId,
        environment: record.environment,
        credentials,
        connection,
        device: state.device ?? null,
        exitProxy: state.exitProxy ?? null,
        door,
      });
      if (!r.ok) throw new Error(r.reason);
      return r;
    }).catch((err: unknown) => {
      // The person's part of the sign-in ended it (they left, the wait expired, nobody could be asked), or the run ended
      // (cancel, timeout): the run's outcome, not the connection's. The provider refused nothing, so the connection is
      // not marked LOGIN_REQUIRED; its dead session is not sealed back either.
      if (err instanceof UserDoorError || signal.aborted) {
        state.sessionDead = true;
        throw err;
      }
      return { ok: false as const, reason: errorText(err) };
    });
    if (outcome.ok) {
      // Sealed at once: even if the run fails later, the connection keeps the fresh session (unless it was revoked
      // meanwhile); the organization hears of the renewal (CONNECTION.SESSION_RENEWED) as it would from a health check.
      await deps.connections.sessionRenewed(connection.id, outcome.storageState);
      // A sign-in may keep its token anywhere (IndexedDB, sessionStorage): a fresh context restores all of it, as for any run.
      await closeRunBrowser(state);
      const page = await openSessionContext(deps, state, provider, outcome.storageState, deadline, signal);
      await openStartingUrl(state, page, record.startingUrl);
      if (!isProviderLoginPage(provider, new URL(page.url()))) return page;
      reason = 'the provider still shows its sign-in page after re-login';
    } else {
      reason = outcome.reason;
    }
  }
  state.sessionDead = true;
  await deps.connections.markLoginRequired(connection.id);
  throw new RunFailure(
    'CONNECTION_LOGIN_REQUIRED',
    `The ${provider.name} session of this connection ended and could not be renewed silently (${reason}); the connection is now LOGIN_REQUIRED. Send the user through the connect flow again (update mode).`,
  );
}

/**
 * Seals the context's session (all of the provider origins' storage) back onto the connection so it stays fresh: not
 * when it is dead, nor onto a connection no longer ACTIVE. A session over the size bound loses its largest parts, and
 * one that cannot fit at all is not written (the connection keeps the one it had): either way the trace says so. One that
 * came back exactly as it was loaded is not written again: the connection is only marked used.
 */
export async function saveSessionBack(deps: SessionDeps, state: RunState, log: Logger) {
  if (!state.context || state.sessionDead) return;
  const keep = state.providerOrigin ?? (() => false);
  try {
    const t0 = performance.now();
    const snapshot = await Promise.race([
      captureSession(state.context, keep),
      // Unref'd: the bound must not keep a finished process (a stopped worker, a test run) alive for its length.
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('capturing the session timed out')), CLOSE_TIMEOUT_MS).unref()),
    ]);
    const { session, dropped } = boundSession(snapshot, SESSION_MAX_BYTES);
    const step = { tool: 'session', url: pageUrl(state.page), durationMs: Math.round(performance.now() - t0) };
    if (!session) {
      pushStep(state, {
        ...step,
        target: 'seal the session back',
        outcome: 'error',
        error: `the session is over ${SESSION_MAX_BYTES} bytes even without its storage (its cookies alone); the connection keeps its previous session`,
      });
      return;
    }
    // Came back exactly as it was loaded (same cookies, same storage): marked used, not sealed and written again.
    const { markUsed } = deps.connections;
    if (!dropped.length && markUsed && state.sessionDigest && sessionDigest(session) === state.sessionDigest) {
      if (await markUsed.call(deps.connections, state.record.connectionId)) {
        state.sealedDigest = state.sessionDigest;
        state.sealedSession = session;
      } else log.info('the connection is no longer ACTIVE; it was not marked used');
      return;
    }
    if (dropped.length) {
      pushStep(state, {
        ...step,
        target: `session over ${SESSION_MAX_BYTES} bytes, sealed without: ${dropped.join('; ')}`.slice(0, 500),
        outcome: 'ok',
      });
    }
    if (await deps.connections.saveSession(state.record.connectionId, session, { used: true })) {
      // What the context holds is now what is stored, unless parts had to be left out.
      if (!dropped.length) {
        state.sealedDigest = sessionDigest(session);
        state.sealedSession = session;
      }
    } else {
      log.info('the connection is no longer ACTIVE; its session was not written back');
    }
  } catch (err) {
    log.warn({ err: errorText(err) }, 'could not seal the session back');
  }
}

/**
 * Ends the run's hold on its context: kept warm for the next run of the same connection when `reusable` (the run ended
 * well and its session is sealed as the context holds it: warm-contexts.ts), closed otherwise. Kept: done before this
 * resolves, so before the run's answer (its pages close under its fence, into its trace, and a revoke the answer leads
 * to finds the context kept). Closed: the fence lets go of the run at once and `closed` is the browser's teardown, which
 * the answer need not wait for.
 */
export async function releaseRunBrowser(
  deps: Pick<SessionDeps, 'warm'>,
  state: RunState,
  reusable: boolean,
): Promise<{ close: () => Promise<void> }> {
  const { warm, reopen, sealedSession } = state;
  state.sealedSession = undefined;
  if (reusable && warm && deps.warm?.fresh && state.sealedDigest && reopen && sealedSession) {
    // Fresh mode: this run's context closes; the next run of its key gets one no page has run in, opened now.
    deps.warm.prepare(warm.key, state.sealedDigest, state.record.connectionId, () => reopen(sealedSession));
  } else if (reusable && warm && deps.warm?.enabled && state.sealedDigest && warm.context === state.context) {
    // Only with the pool on: keep() closes what it cannot keep, and that close would hold the answer (issue #38: 30–55 ms).
    state.context = undefined;
    state.warm = undefined;
    // Checked again once its pages closed: what they sent as they went (an unload write) still counts against the run.
    await deps.warm.keep(warm, state.sealedDigest, () => state.integrity.clean);
    return { close: () => Promise.resolve() };
  }
  let closing: Promise<void> | undefined;
  return { close: () => (closing ??= closeRunBrowser(state)) };
}

/** Closes the run's context, waiting at most a few seconds (a wedged browser must not hold the worker). */
export async function closeRunBrowser(state: RunState) {
  state.warm?.wiring.detach();
  state.warm = undefined;
  if (state.context)
    await Promise.race([state.context.close().catch(() => undefined), new Promise((r) => setTimeout(r, CLOSE_TIMEOUT_MS).unref())]);
}
