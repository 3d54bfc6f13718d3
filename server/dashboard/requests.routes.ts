import type { Response, Router } from 'express';

import { ok } from '../domain/errors';
import type { AgentRequestRecord } from '../store';
import {
  callerFor,
  ctxOf,
  type DashboardDeps,
  field,
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
import { parseRequestFilters } from './request-filters';
import { type LiveExtras, requestDetailPage, requestLiveFragment, requestsPage } from './requests.views';
import { BASE } from './views';

/** An organization's agent requests: the filtered list, a request's detail page and its live part. */
export function mountRequestPages(router: Router, deps: DashboardDeps) {
  const { agentRequests, catalogue, userActions, userActionLinks, clock } = deps;
  // A NEEDS_USER request's user action is sealed on its row: opened here for the members of its organization only.
  const extrasOf = (res: Response, record: AgentRequestRecord, decided?: LiveExtras['decided']): LiveExtras => ({
    userAction: userActions.open(record),
    now: clock.now(),
    csrfToken: ctxOf(res).csrfToken,
    ...(decided ? { decided } : {}),
  });

  router.get(
    '/orgs/:orgId/requests',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const { filters, query } = parseRequestFilters(req);
      const caller = callerFor(org, filters.env);
      const page = query
        ? await pageOrFirst(
            (cursor) => agentRequests.list(caller, { ...query, limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) }),
            queryString(req, 'cursor'),
          )
        : ok({ records: [] as AgentRequestRecord[], nextCursor: null });
      if (!page.ok) return notFound(res);
      res
        .status(query ? 200 : 400)
        .type('html')
        .send(
          requestsPage(
            ctxOf(res),
            org,
            nav(org, 'requests'),
            filters,
            (await catalogue.listFor(caller)).map((p) => ({ providerId: p.providerId, name: p.name })),
            page.value.records,
            await providerNames(catalogue, org, filters.env),
            page.value.nextCursor,
            query ? undefined : 'Dates must be written YYYY-MM-DD.',
          ),
        );
    }),
  );

  const ownedRequest = (res: Response, requestId: string) =>
    requestId.length <= 64
      ? ownedInEitherEnvironment(locals(res).org, (caller) => agentRequests.get(caller, requestId))
      : Promise.resolve(null);

  router.get(
    '/orgs/:orgId/requests/:requestId',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const record = await ownedRequest(res, req.params.requestId);
      if (!record) return notFound(res);
      res
        .type('html')
        .send(
          requestDetailPage(
            ctxOf(res),
            org,
            nav(org, 'requests'),
            record,
            (await providerNames(catalogue, org, record.environment))(record.providerId),
            extrasOf(res, record, decidedOf(queryString(req, 'decided'))),
          ),
        );
    }),
  );

  // The live part of the detail page (htmx polls it every 2 s while the request is PENDING, RUNNING or NEEDS_USER).
  router.get(
    '/orgs/:orgId/requests/:requestId/live',
    wrap(async (req, res) => {
      const record = await ownedRequest(res, req.params.requestId);
      if (!record) return notFound(res);
      res.type('html').send(requestLiveFragment(locals(res).org, record, extrasOf(res, record)).value);
    }),
  );

  // Approve / Deny of a held write by a member: the decision service the API uses (in this process, or stored for the
  // worker holding the run); back to the page, which says what it did.
  router.post(
    '/orgs/:orgId/requests/:requestId/user-action',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const record = await ownedRequest(res, req.params.requestId);
      if (!record) return notFound(res);
      const decision = field(req, 'decision');
      const writeId = field(req, 'writeId');
      let decided: NonNullable<LiveExtras['decided']> = 'over';
      if ((decision === 'approve' || decision === 'deny') && writeId.length > 0 && writeId.length <= 100) {
        const done = await userActionLinks.decideHeldWrite(callerFor(org, record.environment), record.id, decision, writeId);
        if (done) decided = decision === 'approve' ? 'approved' : 'denied';
      }
      res.redirect(303, `${BASE}/orgs/${org.id}/requests/${record.id}?decided=${decided}`);
    }),
  );
}

function decidedOf(v: string | undefined): LiveExtras['decided'] {
  return v === 'approved' || v === 'denied' || v === 'over' ? v : undefined;
}
