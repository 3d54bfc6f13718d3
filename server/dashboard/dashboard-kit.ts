import { serialize as serializeCookie } from 'cookie';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

import type { Environment, SignupMode } from '../config';
import type { UserActionLinks } from '../connect/user-action-link';
import type { AgentRequestService } from '../domain/agent-requests.service';
import type { Clock } from '../domain/clock';
import type { ConnectionHealthService } from '../domain/connection-health.service';
import type { ConnectionService } from '../domain/connections.service';
import type { Caller } from '../domain/context';
import type { Result } from '../domain/errors';
import type { OrganizationProviderService } from '../domain/organization-providers.service';
import type { OrganizationService } from '../domain/organizations.service';
import type { ProviderActionService } from '../domain/provider-actions.service';
import type { RedirectUriService } from '../domain/redirect-uris/redirect-uris.service';
import type { UserActionSeal } from '../domain/user-action-seal';
import type { WebhookEndpointService } from '../domain/webhooks/webhook-endpoints.service';
import type { ProviderCatalogue } from '../providers/catalogue';
import type { DashboardSessionRecord, DashboardUserRecord, OrganizationRecord } from '../store';
import type { DashboardAccountService } from './accounts.service';
import type { InvitationService } from './invitations.service';
import type { OrganizationMembersService } from './members.service';
import { BASE, messagePage, orgNav, type PageContext } from './views';

/**
 * What every dashboard page group shares: its dependencies (the domain services the API uses, plus the
 * dashboard's own accounts), the per-request locals, form and query readers, and the page helpers.
 */
export interface DashboardDeps {
  accounts: DashboardAccountService;
  /** The people of an organization (list, add, remove), and invitation links. */
  members: Pick<OrganizationMembersService, 'list' | 'add' | 'remove'>;
  invitations: Pick<InvitationService, 'create' | 'listPending' | 'revoke' | 'open' | 'accept' | 'joinWithin'>;
  /** AGENTLINK_SIGNUP: who may create an account. */
  signup: SignupMode;
  /** The service's public URL, for the invitation links people send. */
  publicUrl: string;
  organizations: Pick<OrganizationService, 'rotateSecret'>;
  connections: Pick<ConnectionService, 'list' | 'get' | 'revoke'>;
  /** "Check now" on a connection's page (the same check as POST /api/connections/{connectionId}/check). */
  connectionHealth: Pick<ConnectionHealthService, 'checkNow'>;
  agentRequests: Pick<AgentRequestService, 'list' | 'get'>;
  /** Opens what a NEEDS_USER request waits for (sealed on its row), for its page. */
  userActions: Pick<UserActionSeal, 'open'>;
  /** Approve / Deny of a held write on its request's page (the same decision as POST /api/agent-requests/{id}/user-action). */
  userActionLinks: Pick<UserActionLinks, 'decideHeldWrite'>;
  /** "Waiting since 3 min ago": the time now, from the services' clock. */
  clock: Clock;
  webhooks: Pick<WebhookEndpointService, 'list' | 'get' | 'create' | 'delete' | 'listDeliveries' | 'getDelivery' | 'resend'>;
  catalogue: Pick<ProviderCatalogue, 'get' | 'list' | 'listFor'>;
  /** The organization's own providers (the same service as POST/PATCH/DELETE /api/providers). */
  providers: Pick<OrganizationProviderService, 'view' | 'create' | 'update' | 'delete'>;
  /** Where hosted links may redirect when they end (the same service as /api/redirect-uris). */
  redirectUris: Pick<RedirectUriService, 'list' | 'create' | 'delete'>;
  /** The action catalogue shown on the connections page. */
  providerActions: Pick<ProviderActionService, 'list'>;
  /** The session cookie is Secure when the dashboard is served over https. */
  secureCookie: boolean;
}

export const SESSION_COOKIE = 'agentlink_dashboard';
export const PAGE_SIZE = 25;

interface Locals {
  session: DashboardSessionRecord | null;
  /** The session cookie's value (it keys the sealed flash; the server stores only its hash). */
  cookie: string | undefined;
  user: DashboardUserRecord | null;
  /** AGENTLINK_SIGNUP, for the header's Sign up link. */
  signup: SignupMode;
  /** Set by the membership check of /orgs/:orgId. */
  org: OrganizationRecord;
}
export const locals = (res: Response) => res.locals as unknown as Locals;

type AsyncHandler = (req: Request, res: Response, next: NextFunction) => Promise<unknown>;
export const wrap =
  (fn: AsyncHandler): RequestHandler =>
  (req, res, next) => {
    fn(req, res, next).catch(next);
  };

export const field = (req: Request, name: string): string => {
  const v = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : '';
};
export const fieldList = (req: Request, name: string): string[] => {
  const v = (req.body as Record<string, unknown> | undefined)?.[name];
  return (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string');
};
export const queryString = (req: Request, name: string): string | undefined => {
  const v = req.query[name];
  return typeof v === 'string' && v.length > 0 && v.length <= 200 ? v : undefined;
};
export const envOf = (v: unknown): Environment | null => (v === 'sandbox' || v === 'production' ? v : null);

/** The caller the API would be for this organization in one environment: the dashboard asks the same services. */
export const callerFor = (org: OrganizationRecord, environment: Environment): Caller => ({ organizationId: org.id, environment });

/**
 * A page shows a resource of either environment of the organization: the service's own ownership check
 * (organization and environment, as for the API) is asked for each. Null when neither owns it.
 */
export async function ownedInEitherEnvironment<T>(
  org: OrganizationRecord,
  find: (caller: Caller) => Promise<Result<T>>,
): Promise<T | null> {
  for (const environment of ['sandbox', 'production'] as const) {
    const found = await find(callerFor(org, environment));
    if (found.ok) return found.value;
  }
  return null;
}

/** One page of a list; a cursor this dashboard did not hand out (INVALID_CURSOR) shows the first page, as a fresh visit would. */
export async function pageOrFirst<T>(
  list: (cursor: string | undefined) => Promise<Result<T>>,
  cursor: string | undefined,
): Promise<Result<T>> {
  const page = await list(cursor);
  return !page.ok && cursor && page.error.code === 'INVALID_CURSOR' ? list(undefined) : page;
}

export const ctxOf = (res: Response): PageContext => {
  const { session, user, signup } = locals(res);
  return { csrfToken: session?.csrfToken ?? '', ...(user ? { email: user.email } : {}), signupOpen: (signup ?? 'open') === 'open' };
};

export const notFound = (res: Response) =>
  res
    .status(404)
    .type('html')
    .send(messagePage(ctxOf(res), 'Not found', 'There is nothing here, or you do not have access to it.', '404'));

export const nav = (org: OrganizationRecord, active: Parameters<typeof orgNav>[1]) => orgNav(org, active, { webhooks: true });

/** Names of the providers the organization sees in an environment (its own included), by id. */
export async function providerNames(catalogue: DashboardDeps['catalogue'], org: { id: string }, env: Environment) {
  const names = new Map((await catalogue.listFor({ organizationId: org.id, environment: env })).map((p) => [p.providerId, p.name]));
  return (id: string) => names.get(id) ?? id;
}

export function sessionCookies(secure: boolean) {
  return {
    set: (res: Response, cookie: string, expires: Date) =>
      res.append('Set-Cookie', serializeCookie(SESSION_COOKIE, cookie, { httpOnly: true, sameSite: 'lax', secure, path: BASE, expires })),
    clear: (res: Response) =>
      res.append('Set-Cookie', serializeCookie(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'lax', secure, path: BASE, maxAge: 0 })),
  };
}
