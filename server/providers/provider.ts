import type { Environment } from '../config';

/** What the rest of the system knows about a provider. One file per provider builds one of these. */
export interface ProviderDefinition {
  providerId: string;
  name: string;
  slug: string;
  category: 'social' | 'developer';
  environment: Environment;
  homeUrl: string;
  loginUrl: string;
  /** Host names the agent and the login engine may visit: the name itself and its subdomains. */
  allowedDomains: string[];
  logoSvg: string;
}

/** Where the simulated sites are reached: `<slug>.<suffix>` on the service's own scheme and port. */
export interface SandboxOrigins {
  publicUrl: string;
  sandboxHostSuffix: string;
}

export function sandboxOrigin(slug: string, o: SandboxOrigins): { origin: string; host: string } {
  const base = new URL(o.publicUrl);
  const host = `${slug}.${o.sandboxHostSuffix}`;
  return { origin: `${base.protocol}//${host}${base.port ? `:${base.port}` : ''}`, host };
}

export function svgDataUrl(svg: string): string {
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}
