import type { Environment } from '../config';
import type { LoginRecipe } from './login-recipe';

export type { LoginRecipe } from './login-recipe';

/** What the rest of the system knows about a provider. One file per provider builds one of these. */
export interface ProviderDefinition {
  providerId: string;
  name: string;
  slug: string;
  category: 'social' | 'developer';
  environment: Environment;
  homeUrl: string;
  loginUrl: string;
  /**
   * Host names the agent and the login engine may reach, exactly (on homeUrl's scheme and port); `*.example.com`
   * means any subdomain of example.com, only where the provider truly needs it. Enforced by server/egress/.
   */
  allowedDomains: string[];
  /** Writes a read-mode run may still send because the provider's session refresh needs them (exact method and path). */
  sessionRefresh?: { method: string; path: string }[];
  logoSvg: string;
  /**
   * How the login engine signs in to this provider (fields by role and label, success and failure signals). Absent:
   * the person signs in on the provider's real page in the widget's live view (server/connect/live/).
   */
  login?: LoginRecipe;
  /**
   * How a signed-in session is recognised in the live view; every part given must hold: cookie names that must
   * exist, a regular expression (source) the page URL must match, a CSS selector that must be present.
   */
  signedIn?: { cookies?: string[]; urlPattern?: string; element?: string };
  /**
   * Extra hosts (written as allowedDomains are) the browser may reach only while the person signs in: the
   * identity providers its SSO passes through. Never reachable by agent runs.
   */
  identityProviders?: string[];
  /**
   * Whether a page the agent landed on is the provider's sign-in page (the session died). Optional: by default,
   * a URL on the login URL's host whose path starts with the login URL's path (see isProviderLoginPage).
   */
  isLoginPage?(url: URL): boolean;
}

/** The provider's own isLoginPage, or: same host as loginUrl and a path under loginUrl's path. */
export function isProviderLoginPage(provider: Pick<ProviderDefinition, 'loginUrl' | 'isLoginPage'>, url: URL): boolean {
  if (provider.isLoginPage) return provider.isLoginPage(url);
  const login = new URL(provider.loginUrl);
  const base = login.pathname.replace(/\/+$/, '');
  return url.hostname === login.hostname && (url.pathname === base || url.pathname.startsWith(`${base}/`));
}

/** Where the simulated sites are reached: `<slug>.<suffix>` on the service's own scheme and port. */
export interface SandboxOrigins {
  publicUrl: string;
  sandboxHostSuffix: string;
  /**
   * A signed, expiring ticket into the organization's copy of a simulated site (the sandbox kit's TenantTokens,
   * handed over at the composition root). Without it the login engine lands in the site's public copy.
   */
  sandboxTenantToken?: (organizationId: string, siteSlug: string) => string;
}

export function sandboxOrigin(slug: string, o: SandboxOrigins): { origin: string; host: string } {
  const base = new URL(o.publicUrl);
  const host = `${slug}.${o.sandboxHostSuffix}`;
  return { origin: `${base.protocol}//${host}${base.port ? `:${base.port}` : ''}`, host };
}

export function svgDataUrl(svg: string): string {
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}
