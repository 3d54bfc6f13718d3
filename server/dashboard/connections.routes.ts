import type { Response, Router } from 'express';

import { CONNECTION_CHECK_OUTCOMES } from '../../contract/connection-health';
import type { OrganizationRecord } from '../store';
import { actionCatalogueSection } from './actions.views';
import { connectionDetailPage, connectionsPage, revokeConfirmPage } from './connections.views';
import {
  callerFor,
  ctxOf,
  type DashboardDeps,
  envOf,
  locals,
  nav,
  notFound,
  ownedInEitherEnvironment,
  PAGE_SIZE,
  pageOrFirst,
  providerNames,
  queryString,
  wrap,
} from './dashboard-kit';
import { BASE } from './views';

const CHECK_OUTCOMES: ReadonlySet<string> = new Set(CONNECTION_CHECK_OUTCOMES);
const REFUSALS: Record<string, string> = {
  CONNECTION_CHECK_IN_PROGRESS: 'A check of this connection is running; reload the page in a moment.',
  CONNECTION_CHECK_RATE_LIMITED: 'This connection was checked moments ago (or too many checks are running); try again shortly.',
  CONNECTION_REVOKED: 'The connection was revoked: it has no session to check.',
};

/** An organization's connections per environment, and revoking one (through the same service as the API's DELETE). */
export function mountConnectionPages(router: Router, deps: DashboardDeps) {
  const { connections, connectionHealth, catalogue, providerActions, agentRequests } = deps;

  /** Every provider of the environment with its actions (the connections page shows what can be asked of them). */
  const actionsOf = async (org: OrganizationRecord, env: 'sandbox' | 'production') =>
    Promise.all(
      (await catalogue.listFor({ organizationId: org.id, environment: env })).map(async (p) => {
        const listed = await providerActions.list(callerFor(org, env), p.providerId);
        return { providerId: p.providerId, name: p.name, actions: listed.ok ? listed.value.actions : [] };
      }),
    );

  router.get(
    '/orgs/:orgId/connections',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const env = envOf(req.query.env) ?? 'sandbox';
      const page = await pageOrFirst(
        (cursor) => connections.list(callerFor(org, env), { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) }),
        queryString(req, 'cursor'),
      );
      if (!page.ok) return notFound(res);
      res
        .type('html')
        .send(
          connectionsPage(
            ctxOf(res),
            org,
            nav(org, 'connections'),
            env,
            page.value.records,
            await providerNames(catalogue, org, env),
            page.value.nextCursor,
            actionCatalogueSection(await actionsOf(org, env)),
          ),
        );
    }),
  );

  const ownedConnection = (res: Response, connectionId: string) =>
    connectionId.length <= 64
      ? ownedInEitherEnvironment(locals(res).org, (caller) => connections.get(caller, connectionId))
      : Promise.resolve(null);

  router.get(
    '/orgs/:orgId/connections/:connectionId',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const connection = await ownedConnection(res, req.params.connectionId);
      if (!connection) return notFound(res);
      const latest = await agentRequests.list(callerFor(org, connection.environment), { connectionId: connection.id, limit: PAGE_SIZE });
      const outcome = queryString(req, 'checked');
      const refused = queryString(req, 'refused');
      res.type('html').send(
        connectionDetailPage(
          ctxOf(res),
          org,
          nav(org, 'connections'),
          connection,
          (await providerNames(catalogue, org, connection.environment))(connection.providerId),
          latest.ok ? latest.value.records : [],
          {
            ...(outcome && CHECK_OUTCOMES.has(outcome) ? { outcome } : {}),
            ...(refused && REFUSALS[refused] ? { refused: REFUSALS[refused] } : {}),
          },
        ),
      );
    }),
  );

  // Runs the check and comes back to the page, which says what it found (only known values are shown from the URL).
  router.post(
    '/orgs/:orgId/connections/:connectionId/check',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const connection = await ownedConnection(res, req.params.connectionId);
      if (!connection) return notFound(res);
      const result = await connectionHealth.checkNow(callerFor(org, connection.environment), connection.id);
      const query: Record<string, string> = result.ok ? { checked: result.value.outcome } : { refused: result.error.code };
      res.redirect(303, `${BASE}/orgs/${org.id}/connections/${connection.id}?${new URLSearchParams(query).toString()}`);
    }),
  );

  router.get(
    '/orgs/:orgId/connections/:connectionId/revoke',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const connection = await ownedConnection(res, req.params.connectionId);
      if (!connection) return notFound(res);
      res
        .type('html')
        .send(
          revokeConfirmPage(
            ctxOf(res),
            org,
            nav(org, 'connections'),
            connection,
            (await providerNames(catalogue, org, connection.environment))(connection.providerId),
          ),
        );
    }),
  );

  router.post(
    '/orgs/:orgId/connections/:connectionId/revoke',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const connection = await ownedConnection(res, req.params.connectionId);
      if (!connection) return notFound(res);
      const revoked = await connections.revoke(callerFor(org, connection.environment), connection.id);
      if (!revoked.ok) return notFound(res);
      res.redirect(303, `${BASE}/orgs/${org.id}/connections?env=${connection.environment}`);
    }),
  );
}
