import type { Page } from 'playwright-core';

import { watchRefusals } from '../../server/agent/run/network-guard';
import { sessionFence } from '../../server/agent/worker/run-session';
import { UNNEEDED_DESTINATIONS } from '../../server/browser/resource-filter';
import { captureSession, restoreSessionStorage } from '../../server/browser/session-capture';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { openFencedContext, openPage } from '../../server/egress/fenced-context';
import type { Services } from '../../server/services';

/**
 * The floor script inside the fence a run works in, for bench:agent's throughput rows: the same hand-written steps, in a
 * context that presents the connection's device, sends everything through its own egress proxy (TLS terminated, each
 * request checked, fonts and media refused there) with the page's view of its refusals, and has its session captured at the end, as a run's is. It tells the
 * part of the run's cost that is the fence (floor → fenced floor) from the part that is the service (fenced floor → API):
 * the queue, the store, routing, the trace, the result's validation and the session's seal.
 */
export function fencedFloor(
  services: Services,
  connectionId: string,
  providerId: string,
  steps: (page: Page) => Promise<void>,
): () => Promise<void> {
  return async () => {
    const connection = (await services.connections.findForRun(connectionId))!;
    const provider = services.catalogue.get(providerId, connection.environment)!;
    const policy = EgressPolicy.forProvider(provider, connection.environment);
    const keep = (origin: string) => policy.checkUrl(origin).ok;
    const session = services.connections.openSession(connection);
    const device = services.connections.deviceOf(connection);
    // read_write without approval, as the bench's requests: no change gate, every write the policy allows goes out.
    const context = await openFencedContext(services.browsers, {
      policy,
      onBlocked: () => undefined,
      skipDestinations: UNNEEDED_DESTINATIONS,
      ...sessionFence(device, null, session, keep),
    });
    try {
      const opened: { page?: Page } = {};
      watchRefusals(context, {
        policy,
        sessionRefresh: provider.sessionRefresh,
        mode: 'read_write',
        mainFrame: () => opened.page?.mainFrame(),
        report: () => undefined,
      });
      const page = (opened.page = await openPage(context));
      if (session) await restoreSessionStorage(page, session, keep);
      await steps(page);
      await captureSession(context, keep);
    } finally {
      await context.close();
    }
  };
}
