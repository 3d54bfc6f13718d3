import type { Logger } from 'pino';
import type { BrowserContextOptions, Page } from 'playwright-core';

import { trackRequests } from '../browser/page-quiet';
import { refuseUnneededResources } from '../browser/resource-filter';
import type { ProviderSession } from '../domain/connections.service';
import { EgressPolicy } from '../egress/egress-policy';
import { openFencedContext } from '../egress/fenced-context';
import type { ProviderDefinition } from '../providers/catalogue';
import { isProviderLoginPage } from '../providers/provider';
import type { ConnectionRecord } from '../store';
import { BrowserUnavailable } from './browser-loss';
import { blockReporter, changeGate, fromProxy, installNetworkGuard } from './network-guard';
import { RunFailure } from './run-errors';
import { pushStep, type RunState, timedStep } from './run-state';
import { watchTabs } from './tabs/run-tabs';
import { errorText, pageUrl } from './trace';
import type { WorkerDeps } from './worker-deps';

/**
 * The provider session's side of a run: a fresh browser context loaded with the connection's unsealed
 * session and fenced to the provider's domains, the starting URL, a silent re-login when the session died,
 * and the session sealed back at the end. Every session write goes through the connection service, which
 * writes only while the connection is still ACTIVE (a revoke during the run wins).
 */
type SessionDeps = Pick<WorkerDeps, 'connections' | 'browsers' | 'relogin'>;

const CLOSE_TIMEOUT_MS = 5000;

/**
 * The options of every browser context that carries a connection's session: an agent run's, and a health check's
 * (server/agent/health/), so that the provider sees the same browser whichever of the two comes.
 */
export function sessionContextOptions(storageState: ProviderSession | null): BrowserContextOptions {
  return { viewport: { width: 1280, height: 900 }, locale: 'en-US', ...(storageState ? { storageState } : {}) };
}

/** Opens the run's context and page (kept on `state` so the worker can screenshot and close them). */
export async function openRunBrowser(
  deps: SessionDeps,
  state: RunState,
  connection: ConnectionRecord,
  provider: ProviderDefinition,
  deadline: number,
  signal: AbortSignal,
): Promise<Page> {
  let storageState: ProviderSession | null;
  try {
    storageState = deps.connections.openSession(connection);
  } catch {
    throw new RunFailure(
      'SESSION_UNREADABLE',
      'The stored session of this connection could not be opened (was the encryption key changed?).',
    );
  }
  signal.throwIfAborted();
  const policy = EgressPolicy.forProvider(provider, state.record.environment);
  const report = blockReporter((b) => {
    if (b.mainFrameNavigation && !state.blockedNavigation) state.blockedNavigation = b;
    // A run that was blocked anywhere is never recorded for replay.
    state.integrity.taint('BLOCKED_REQUEST', `${b.resourceType} ${b.url.slice(0, 200)}: ${b.reason}`);
    pushStep(state, {
      tool: b.mainFrameNavigation ? 'navigate' : 'request',
      target: `${b.resourceType} ${b.url.slice(0, 300)}`,
      url: pageUrl(state.page),
      durationMs: 0,
      outcome: 'blocked',
      error: `blocked: ${b.reason}`,
    });
  });
  // Every connection of the context goes through its egress proxy (redirect hops and every realm included): it decides
  // what read mode lets out and counts the changes sent; the page guard adds frame and navigation detail to the trace.
  const context = await openFencedContext(deps.browsers, {
    policy,
    onBlocked: (b) => report(fromProxy(b)),
    gate: changeGate(state.mode, provider.sessionRefresh),
    onChangeSent: () => {
      state.changesSent += 1;
    },
    options: sessionContextOptions(storageState),
  }).catch((err: unknown) => {
    throw new BrowserUnavailable(err);
  });
  state.context = context;
  if (signal.aborted) throw signal.reason;
  // Settling after an action waits for the requests it started, from the first action on.
  trackRequests(context);
  // Before the guard, so the guard's route runs first and sees (and reports) every request.
  await refuseUnneededResources(context);
  await installNetworkGuard(context, {
    policy,
    sessionRefresh: provider.sessionRefresh,
    mode: state.mode,
    mainFrame: () => state.page?.mainFrame(),
    report,
  });
  const page = await context.newPage();
  state.page = page;
  // Tabs the pages open are tracked from the start; state.page follows the current tab (failure screenshot, network guard).
  watchTabs(page, policy).onSwitch((current) => {
    state.page = current;
  });
  const stepTimeout = () => Math.max(1000, Math.min(20_000, deadline - Date.now()));
  page.setDefaultTimeout(stepTimeout());
  page.setDefaultNavigationTimeout(stepTimeout());
  return page;
}

export async function openStartingUrl(state: RunState, page: Page, url: string) {
  try {
    await timedStep(state, 'navigate', 'starting URL', () => page.goto(url, { waitUntil: 'domcontentloaded' }));
  } catch (err) {
    if (state.blockedNavigation) {
      const b = state.blockedNavigation;
      throw new RunFailure('NAVIGATION_BLOCKED', `Loading the starting URL led outside the provider: ${b.url} was blocked (${b.reason}).`, {
        url: b.url,
      });
    }
    throw new RunFailure('STARTING_URL_UNREACHABLE', `The starting URL could not be loaded: ${errorText(err)}`);
  }
}

/** The starting URL landed on the sign-in page: log in again from the sealed credentials, or give up (LOGIN_REQUIRED). */
export async function renewDeadSession(
  deps: SessionDeps,
  state: RunState,
  connection: ConnectionRecord,
  provider: ProviderDefinition,
  page: Page,
) {
  const { record } = state;
  let reason = 'no credentials are stored for silent re-login';
  const credentials = deps.relogin ? deps.connections.openCredentials(connection) : null;
  if (!deps.relogin) reason = 'silent re-login is not available';
  if (credentials && deps.relogin) {
    const relogin = deps.relogin;
    const outcome = await timedStep(state, 'relogin', `${provider.name} sign-in with the stored credentials`, async () => {
      const r = await relogin.relogin({
        requestId: record.id,
        provider,
        organizationId: record.organizationId,
        environment: record.environment,
        credentials,
      });
      if (!r.ok) throw new Error(r.reason);
      return r;
    }).catch((err: unknown) => ({ ok: false as const, reason: errorText(err) }));
    if (outcome.ok) {
      await state.context!.clearCookies();
      await state.context!.addCookies(outcome.storageState.cookies);
      // Sealed at once: even if the run fails later, the connection keeps the fresh session (unless it was revoked
      // meanwhile); the organization hears of the renewal (CONNECTION.SESSION_RENEWED) as it would from a health check.
      await deps.connections.sessionRenewed(connection.id, outcome.storageState);
      await openStartingUrl(state, page, record.startingUrl);
      if (!isProviderLoginPage(provider, new URL(page.url()))) return;
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

/** Seals the context's session back onto the connection so it stays fresh (not when it is dead, nor onto a connection no longer ACTIVE). */
export async function saveSessionBack(deps: SessionDeps, state: RunState, log: Logger) {
  if (!state.context || state.sessionDead) return;
  try {
    const snapshot = await Promise.race([
      state.context.storageState(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('storageState timed out')), CLOSE_TIMEOUT_MS)),
    ]);
    if (!(await deps.connections.saveSession(state.record.connectionId, snapshot, { used: true }))) {
      log.info('the connection is no longer ACTIVE; its session was not written back');
    }
  } catch (err) {
    log.warn({ err: errorText(err) }, 'could not seal the session back');
  }
}

/** Closes the run's context, waiting at most a few seconds (a wedged browser must not hold the worker). */
export async function closeRunBrowser(state: RunState) {
  if (state.context)
    await Promise.race([state.context.close().catch(() => undefined), new Promise((r) => setTimeout(r, CLOSE_TIMEOUT_MS))]);
}
