import type { Request, Response, Router } from 'express';

import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../contract/webhook-schemas';
import type { NewWebhookEndpoint } from '../domain/webhooks/webhook-endpoints.service';
import {
  callerFor,
  ctxOf,
  type DashboardDeps,
  envOf,
  field,
  fieldList,
  locals,
  nav,
  notFound,
  ownedInEitherEnvironment,
  queryString,
  wrap,
} from './dashboard-kit';
import { BASE } from './views';
import { webhookDeliveryPage } from './webhook-delivery.views';
import { webhookDeleteConfirmPage, webhookDetailPage, webhooksPage } from './webhooks.views';

/** Webhooks: endpoints per environment (the signing secret shown once), deliveries with response codes, re-send. */
export function mountWebhookPages(router: Router, deps: DashboardDeps) {
  const { webhooks } = deps;
  const ownedEndpoint = (res: Response, webhookId: string) =>
    ownedInEitherEnvironment(locals(res).org, (caller) => webhooks.get(caller, webhookId.slice(0, 64)));

  router.get(
    '/orgs/:orgId/webhooks',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const env = envOf(req.query.env) ?? 'sandbox';
      res.type('html').send(webhooksPage(ctxOf(res), org, nav(org, 'webhooks'), env, await webhooks.list(callerFor(org, env))));
    }),
  );

  router.post(
    '/orgs/:orgId/webhooks',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const env = envOf(field(req, 'env')) ?? 'sandbox';
      const caller = callerFor(org, env);
      const form = endpointForm(req);
      const created = 'error' in form ? null : await webhooks.create(caller, form);
      const error = 'error' in form ? form.error : created && !created.ok ? created.error.message : undefined;
      res
        .status(error ? 400 : 201)
        .type('html')
        .send(
          webhooksPage(ctxOf(res), org, nav(org, 'webhooks'), env, await webhooks.list(caller), {
            ...(error ? { error } : {}),
            ...(created?.ok ? { created: created.value } : {}),
          }),
        );
    }),
  );

  router.get(
    '/orgs/:orgId/webhooks/:webhookId',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const endpoint = await ownedEndpoint(res, req.params.webhookId);
      if (!endpoint) return notFound(res);
      const cursor = queryString(req, 'cursor');
      const page = await webhooks.listDeliveries(callerFor(org, endpoint.environment), endpoint.id, cursor ? { cursor } : {});
      if (!page.ok) return notFound(res);
      const resent = req.query.resent === '1' ? 'A new delivery was queued; it shows up here with its own response code.' : undefined;
      res
        .type('html')
        .send(webhookDetailPage(ctxOf(res), org, nav(org, 'webhooks'), endpoint, page.value.records, page.value.nextCursor, resent));
    }),
  );

  router.get(
    '/orgs/:orgId/webhooks/:webhookId/deliveries/:deliveryId',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const endpoint = await ownedEndpoint(res, req.params.webhookId);
      if (!endpoint) return notFound(res);
      const found = await webhooks.getDelivery(callerFor(org, endpoint.environment), endpoint.id, req.params.deliveryId.slice(0, 64));
      if (!found.ok) return notFound(res);
      res.type('html').send(webhookDeliveryPage(ctxOf(res), org, nav(org, 'webhooks'), endpoint, found.value.delivery, found.value.event));
    }),
  );

  router.get(
    '/orgs/:orgId/webhooks/:webhookId/delete',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const endpoint = await ownedEndpoint(res, req.params.webhookId);
      if (!endpoint) return notFound(res);
      res.type('html').send(webhookDeleteConfirmPage(ctxOf(res), org, nav(org, 'webhooks'), endpoint));
    }),
  );

  router.post(
    '/orgs/:orgId/webhooks/:webhookId/delete',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const endpoint = await ownedEndpoint(res, req.params.webhookId);
      if (!endpoint) return notFound(res);
      await webhooks.delete(callerFor(org, endpoint.environment), endpoint.id);
      res.redirect(303, `${BASE}/orgs/${org.id}/webhooks?env=${endpoint.environment}`);
    }),
  );

  router.post(
    '/orgs/:orgId/webhooks/deliveries/:deliveryId/resend',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const deliveryId = req.params.deliveryId.slice(0, 64);
      const resent = await ownedInEitherEnvironment(org, (caller) => webhooks.resend(caller, deliveryId));
      if (!resent) return notFound(res);
      res.redirect(303, `${BASE}/orgs/${org.id}/webhooks/${resent.endpointId}?resent=1`);
    }),
  );
}

/** The new-endpoint form: what the service is asked to create, or what the person must fix first. */
function endpointForm(req: Request): NewWebhookEndpoint | { error: string } {
  const events = fieldList(req, 'events').filter((e): e is WebhookEventType => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(e));
  const url = field(req, 'url').trim();
  const description = field(req, 'description').trim().slice(0, 500);
  if (url.length === 0 || url.length > 2048) return { error: 'Enter the URL of your endpoint.' };
  if (events.length === 0) return { error: 'Choose at least one event.' };
  return { url, events, ...(description ? { description } : {}) };
}
