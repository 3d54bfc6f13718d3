import type { Response, Router } from 'express';

import type { DomainError } from '../domain/errors';
import type { ProviderView } from '../domain/organization-providers.service';
import type { DeclarationIssue } from '../providers/declaration';
import { callerFor, ctxOf, type DashboardDeps, envOf, field, locals, nav, notFound, ownedInEitherEnvironment, wrap } from './dashboard-kit';
import { type FormProblem, providerDeleteConfirmPage, providerEditPage, providersPage } from './providers.views';
import { BASE } from './views';

/**
 * The organization's own providers: listed per environment, added and edited as a JSON declaration (the API's
 * schema, checked by the same service, its refusals shown by field path), deleted unless connections use them.
 */
export function mountProviderPages(router: Router, deps: DashboardDeps) {
  const { providers, catalogue } = deps;
  /** One of the organization's own providers (never a shared one: those are not edited here). */
  const ownedProvider = async (res: Response, providerId: string): Promise<ProviderView | null> => {
    const found = await ownedInEitherEnvironment(locals(res).org, (caller) => providers.view(caller, providerId.slice(0, 64)));
    return found?.declaration ? found : null;
  };

  router.get(
    '/orgs/:orgId/providers',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const env = envOf(req.query.env) ?? 'sandbox';
      res.type('html').send(providersPage(ctxOf(res), org, nav(org, 'providers'), env, await catalogue.listFor(callerFor(org, env))));
    }),
  );

  router.post(
    '/orgs/:orgId/providers',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const env = envOf(field(req, 'env')) ?? 'sandbox';
      const caller = callerFor(org, env);
      const text = field(req, 'declaration');
      const parsed = parseJson(text);
      let problem: FormProblem;
      if ('problem' in parsed) problem = parsed.problem;
      else {
        const created = await providers.create(caller, parsed.value);
        if (created.ok) return res.redirect(303, `${BASE}/orgs/${org.id}/providers/${created.value.provider.providerId}?saved=1`);
        problem = problemOf(created.error);
      }
      res
        .status(400)
        .type('html')
        .send(providersPage(ctxOf(res), org, nav(org, 'providers'), env, await catalogue.listFor(caller), { problem, text }));
    }),
  );

  router.get(
    '/orgs/:orgId/providers/:providerId',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const found = await ownedProvider(res, req.params.providerId);
      if (!found) return notFound(res);
      const text = JSON.stringify(found.declaration, null, 2);
      res
        .type('html')
        .send(providerEditPage(ctxOf(res), org, nav(org, 'providers'), found.provider, text, { saved: req.query.saved === '1' }));
    }),
  );

  router.post(
    '/orgs/:orgId/providers/:providerId',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const found = await ownedProvider(res, req.params.providerId);
      if (!found?.declaration) return notFound(res);
      const text = field(req, 'declaration');
      const parsed = parseJson(text);
      // The form holds the whole declaration: a field left out is removed, not kept.
      const cleared = Object.fromEntries(Object.keys(found.declaration).map((k) => [k, undefined]));
      const caller = callerFor(org, found.provider.environment);
      let problem: FormProblem;
      if ('problem' in parsed) problem = parsed.problem;
      else {
        const updated = await providers.update(caller, found.provider.providerId, { ...cleared, ...(parsed.value as object) });
        if (updated.ok) return res.redirect(303, `${BASE}/orgs/${org.id}/providers/${found.provider.providerId}?saved=1`);
        problem = problemOf(updated.error);
      }
      res
        .status(400)
        .type('html')
        .send(providerEditPage(ctxOf(res), org, nav(org, 'providers'), found.provider, text, { problem }));
    }),
  );

  router.get(
    '/orgs/:orgId/providers/:providerId/delete',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const found = await ownedProvider(res, req.params.providerId);
      if (!found) return notFound(res);
      res.type('html').send(providerDeleteConfirmPage(ctxOf(res), org, nav(org, 'providers'), found.provider));
    }),
  );

  router.post(
    '/orgs/:orgId/providers/:providerId/delete',
    wrap(async (req, res) => {
      const org = locals(res).org;
      const found = await ownedProvider(res, req.params.providerId);
      if (!found) return notFound(res);
      const deleted = await providers.delete(callerFor(org, found.provider.environment), found.provider.providerId);
      if (deleted.ok) return res.redirect(303, `${BASE}/orgs/${org.id}/providers?env=${found.provider.environment}`);
      res
        .status(409)
        .type('html')
        .send(providerDeleteConfirmPage(ctxOf(res), org, nav(org, 'providers'), found.provider, deleted.error.message));
    }),
  );
}

function parseJson(text: string): { value: unknown } | { problem: FormProblem } {
  if (!text.trim()) return { problem: { message: 'Enter the declaration as JSON.' } };
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    return { problem: { message: `The declaration is not valid JSON: ${(err as Error).message}` } };
  }
}

/** A refusal of the service, with its field paths when it has them. */
function problemOf(error: DomainError): FormProblem {
  const issues = Array.isArray(error.details) ? (error.details as DeclarationIssue[]) : undefined;
  return { message: error.message, ...(issues ? { issues } : {}) };
}
