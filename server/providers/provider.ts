import type { LiveViewport, ProviderCategory, ReadyWhen, SignedIn } from '../../contract/provider-declaration';
import type { Environment } from '../config';
import type { LoginRecipe, Target } from './login-recipe';

export type { LoginRecipe } from './login-recipe';

/**
 * What the rest of the system knows about a provider: a declaration (contract/provider-declaration.ts) in its
 * runtime form, made by compileDeclaration (server/providers/declaration.ts): patterns compiled to RegExp.
 * Built-ins, the operator's file and an organization's private providers all become one of these.
 */
export interface ProviderDefinition {
  providerId: string;
  name: string;
  slug: string;
  category: ProviderCategory;
  environment: Environment;
  homeUrl: string;
  loginUrl: string;
  /**
   * Where the agent and the login engine may connect, enforced by server/egress/: host names (on homeUrl's scheme and
   * port; `*.example.com` means any subdomain, only where the provider truly needs it) or full origins with a port.
   */
  allowedOrigins: string[];
  /** Origins its single sign-on passes through (accounts.example.com): reachable during sign-in only. */
  identityProviders?: string[];
  /** Writes a read-mode run may still send because the provider's session refresh needs them (exact method and path). */
  sessionRefresh?: { method: string; path: string }[];
  /** An SVG document or an https URL (see providerLogoUrl); absent: a letter mark of the name. */
  logo?: string;
  /** How the login engine signs in by replaying a form (fields by role and label, success and failure signals). */
  login?: LoginRecipe;
  /** The sign-in page's passkey control, for silent renewal with the connection's passkey (default: found by its name). */
  passkeySignIn?: Target;
  /** How a signed-in session is recognised: cookies set, the URL (a regular-expression source on href), an element. */
  signedIn?: SignedIn;
  /** When a page has drawn its content (a selector, a text): the agent looks only then. Default: a main landmark with content. */
  readyWhen?: ReadyWhen;
  /** The live sign-in page's viewport (default DEFAULT_LIVE_VIEWPORT), scaled to the widget's canvas. */
  liveViewport?: LiveViewport;
  /** The page is the provider's sign-in page (tested on href). Default: see isProviderLoginPage. */
  loginPagePattern?: RegExp;
  /**
   * Web Bot Auth: the agent's requests to this provider are signed with the deployment's key, where the organization
   * opted in too (its connection settings). Default off: a signature tells the site the visit is automated.
   */
  signedAgent?: boolean;
  /** Who declared it: shipped with AgentLink (the default), the operator's providers file, or one organization. */
  source?: 'built-in' | 'operator' | 'organization';
  /** Set for an organization's private provider: the only organization that may see or use it. */
  organizationId?: string;
  /**
   * Not data: the start URL of a built-in sandbox provider's sign-in carries a ticket the service signs per
   * organization (see server/integrations/sandbox-login.recipe.ts). Defaults to loginUrl.
   */
  loginStartUrl?(loginUrl: string, ctx: { organizationId: string; environment: Environment }): string;
}

/** The provider's loginPagePattern, or: same host as loginUrl and a path under loginUrl's path. */
export function isProviderLoginPage(provider: Pick<ProviderDefinition, 'loginUrl' | 'loginPagePattern'>, url: URL): boolean {
  if (provider.loginPagePattern) return provider.loginPagePattern.test(url.href.slice(0, 4096));
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

/** The logo as an image URL: an SVG document as a data: URL, an https URL as it is, none: the letter mark. */
export function providerLogoUrl(p: Pick<ProviderDefinition, 'logo' | 'name'>): string {
  if (!p.logo) return letterMark(p.name);
  return p.logo.trimStart().startsWith('<svg') ? svgDataUrl(p.logo) : p.logo;
}

/** The provider's first letter on a rounded square, as a data: URL (no logo declared, or one the widget must not fetch). */
export function letterMark(name: string): string {
  const initial = (name.trim()[0] ?? '?').toUpperCase().replace(/[<>&"']/g, '?');
  return svgDataUrl(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#64748b"/>' +
      `<text x="32" y="43" text-anchor="middle" font-family="Arial" font-weight="700" font-size="30" fill="#fff">${initial}</text></svg>`,
  );
}

/**
 * A simulated site shipped with AgentLink (server/integrations/): the only providers whose sign-in the sandbox's test
 * users (user_good / pass_good) open. An organization's or the operator's sandbox provider is a real site of theirs.
 */
export function isBuiltInSandbox(p: Pick<ProviderDefinition, 'environment' | 'source'>): boolean {
  return p.environment === 'sandbox' && (p.source ?? 'built-in') === 'built-in';
}

/**
 * The logo as the connect widget shows it: always a data: URL, so the widget (img-src 'self' data:) never fetches
 * from a host a declaration names, which would tell that host who opened it. An https logo becomes a monogram.
 */
export function providerLogoDataUrl(p: Pick<ProviderDefinition, 'logo' | 'name'>): string {
  return p.logo?.trimStart().startsWith('<svg') ? svgDataUrl(p.logo) : letterMark(p.name);
}
