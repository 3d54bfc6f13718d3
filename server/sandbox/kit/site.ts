import type { Request, Response, Router } from 'express';

import type { RawHtml } from './html';

/** The kit's time source (the service's clock fits it); declared here so the kit imports nothing of domain/. */
export interface KitClock {
  now(): Date;
}

/**
 * A simulated provider website. Each site lives in its integration's folder (server/integrations/<slug>/site/) and exports one of these;
 * the kit gives it login (all test users), sessions, CSRF, tenants and storage, so a site only adds pages.
 */
export interface SiteDefinition {
  /** Same as the provider slug in the catalogue; the site answers on host `<slug>.<sandbox host suffix>`. */
  slug: string;
  brand: {
    name: string;
    /** Full stylesheet of the site (served inline); login pages use it too. */
    css: string;
    logoSvg: string;
  };
  /** Documents a fresh tenant starts with (people, posts, repositories …). */
  seed(): SeedDoc[];
  /** Mounts the site's pages. Every route is behind login unless listed in publicPaths. */
  routes(router: Router, kit: SiteKit): void;
  /** Wraps a logged-in page's content in the site's chrome (header, nav, toasts). */
  layout(input: LayoutInput): RawHtml;
  /** Where to go after login when no `next` was given. */
  homePath: string;
  /**
   * The site's own sign-in pages (e.g. "Continue with" an identity provider), in place of the kit's username and
   * password form: mounted before everything else, with the kit's session and page helpers.
   */
  signIn?(router: Router, auth: SiteAuth): void;
}

/** What a site's own sign-in pages get from the kit. */
export interface SiteAuth {
  /** Starts a site session for a sandbox test user in a tenant's copy, and redirects to `next` (a path on the site). */
  startSession(res: Response, username: string, tenant: string, next: string): Promise<void>;
  /** The tenant a signed ticket (?tenant_token=) names for this site, or null (the visitor gets the public copy). */
  tenantFromTicket(ticket: unknown): string | null;
  /** A page in the kit's sign-in look, in the site's brand. */
  authPage(res: Response, status: number, title: string, content: RawHtml): void;
  /** CSRF for forms shown before a session exists: the token to embed, and the check of a posted form. */
  preCsrf(req: Request, res: Response): string;
  checkPreCsrf(req: Request, res: Response): boolean;
  /** Cookies of the request, parsed. */
  cookies(res: Response): Record<string, string | undefined>;
  /** `next` made safe: a path on this site, or the fallback. */
  safeNext(next: unknown): string;
  records: SignInRecords;
  /** A tenant's documents before a session exists (e.g. the passkeys a sign-in is checked against). */
  docs(tenant: string): SiteDocs;
}

export interface SeedDoc {
  kind: string;
  /** Documents reference each other by natural keys (username, owner/name), never by row id: ids are global. */
  data: Record<string, unknown>;
  /** Minutes before "now" the document was created (keeps seeded feeds in a believable order). */
  ageMinutes?: number;
}

export interface LayoutInput {
  title: string;
  body: RawHtml;
  user: SiteUser;
  csrfToken: string;
  toast?: string;
  /** Which nav entry to highlight. */
  active?: string;
}

export interface SiteUser {
  username: string;
  displayName: string;
}

export interface Doc<T = Record<string, unknown>> {
  id: string;
  kind: string;
  data: T;
  createdAt: Date;
  updatedAt: Date;
}

/** Storage scoped to the current request's tenant and site. */
export interface SiteDocs {
  list<T = Record<string, unknown>>(kind: string): Promise<Doc<T>[]>;
  get<T = Record<string, unknown>>(id: string): Promise<Doc<T> | null>;
  insert<T extends Record<string, unknown>>(kind: string, data: T): Promise<Doc<T>>;
  update<T extends Record<string, unknown>>(id: string, data: T): Promise<void>;
  remove(id: string): Promise<void>;
}

export interface SiteKit {
  docs(res: Response): SiteDocs;
  user(res: Response): SiteUser;
  csrfToken(res: Response): string;
  /** `<input type="hidden" name="_csrf" …>` for forms; fetch() calls send the token in x-csrf-token. */
  csrfField(res: Response): RawHtml;
  /** A one-time message shown on the next page (set before a redirect). */
  flash(res: Response, message: string): void;
  /** Renders a full logged-in page with the site's layout. */
  page(req: Request, res: Response, input: Omit<LayoutInput, 'user' | 'csrfToken' | 'toast'>, status?: number): void;
  now(): Date;
  /** Short-lived sign-in records (for a site that is an identity provider: its challenges and authorization codes). */
  records: SignInRecords;
}

/**
 * Short-lived records of a sign-in in progress (SSO state, authorization codes, challenges), kept in the service's
 * database so that every process sees them. Each is found by an opaque, unguessable value handed to the browser; only
 * its hash is stored. `take` reads and deletes (single use); expired records are never answered.
 */
export interface SignInRecords {
  put(site: string, kind: string, data: Record<string, unknown>, ttlSeconds: number): Promise<string>;
  get(site: string, kind: string, value: string): Promise<Record<string, unknown> | null>;
  take(site: string, kind: string, value: string): Promise<Record<string, unknown> | null>;
}
