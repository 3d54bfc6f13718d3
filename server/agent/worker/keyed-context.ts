import type { BrowserContext } from 'playwright-core';

import { trackRequests } from '../../browser/page-quiet';
import { UNNEEDED_DESTINATIONS } from '../../browser/resource-filter';
import type { EgressPolicy } from '../../egress/egress-policy';
import type { ChangeGate } from '../../egress/egress-proxy';
import { type ContextSource, type FenceOptions, openFencedContext } from '../../egress/fenced-context';
import type { ProviderDefinition } from '../../providers/catalogue';
import { ContextWiring, type RunPort } from '../run/context-wiring';
import { changeGate, type RunMode, watchRefusals } from '../run/network-guard';
import { BrowserUnavailable } from './browser-loss';
import type { WarmContext } from './warm-contexts';

/**
 * A new fenced context for a run of `key` (run-session.ts), its fence wired to whichever run holds it (context-wiring.ts):
 * the run that opens it (`port`), or, for a context prepared ahead of the next run (prepared-context.ts), no run yet:
 * until one attaches, its fence refuses every request. `opened` is told of the context as soon as it exists, so a run
 * closes it should what follows fail.
 */
export async function openKeyedContext(
  browsers: ContextSource,
  opts: {
    provider: ProviderDefinition;
    policy: EgressPolicy;
    key: string;
    connectionId: string;
    mode: RunMode | undefined;
    approve?: ChangeGate['approve'];
    port?: RunPort;
    fence: Pick<FenceOptions, 'identity' | 'upstreamProxy' | 'options' | 'signer'>;
    opened?: (context: BrowserContext) => void;
  },
): Promise<WarmContext> {
  const { provider, policy } = opts;
  const wiring = new ContextWiring(changeGate(opts.mode, provider.sessionRefresh, opts.approve));
  if (opts.port) wiring.attach(opts.port);
  // Every connection of the context goes through its egress proxy (redirect hops and every realm included): it decides
  // what read mode lets out and counts the changes sent; the page's view adds frame and navigation detail to the trace.
  const context = await openFencedContext(browsers, {
    policy,
    onBlocked: wiring.onBlocked,
    gate: wiring,
    onChangeSent: wiring.onChangeSent,
    skipDestinations: UNNEEDED_DESTINATIONS,
    ...opts.fence,
  }).catch((err: unknown) => {
    throw new BrowserUnavailable(err);
  });
  opts.opened?.(context);
  // Settling after an action waits for the requests it started, from the first action on.
  trackRequests(context);
  watchRefusals(context, {
    policy,
    sessionRefresh: provider.sessionRefresh,
    mode: opts.mode,
    mainFrame: wiring.mainFrame,
    report: wiring.report,
  });
  return { context, wiring, key: opts.key, connectionId: opts.connectionId };
}
