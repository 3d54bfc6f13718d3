import type { Playbook } from '../agent/playbooks/registry';
import type { ProviderDefinition, SandboxOrigins } from '../providers/provider';
import type { SiteDefinition } from '../sandbox/kit/site';
import { forgehub } from './forgehub';
import { github } from './github';
import type { Integration } from './integration';
import { linkedin } from './linkedin';
import { lumen } from './lumen';
import { orbit } from './orbit';
import { quill } from './quill';
import { x } from './x';

export type { Integration } from './integration';

/**
 * Every built-in integration. A new provider is a folder next to this file plus one entry here; the composition
 * root builds the catalogue, the playbook registry and the sandbox sites from this list.
 */
export const INTEGRATIONS: readonly Integration[] = [orbit, forgehub, lumen, quill, github, linkedin, x];

/** What the composition root needs, built from a list of integrations (checked for consistency first). */
export function assembleIntegrations(integrations: readonly Integration[], origins: SandboxOrigins) {
  const providers: ProviderDefinition[] = [];
  const sites: SiteDefinition[] = [];
  const playbooks: Playbook<unknown>[] = [];
  const slugs = new Set<string>();
  for (const integration of integrations) {
    const provider = integration.provider(origins);
    checkIntegration(integration, provider, slugs);
    slugs.add(integration.slug);
    providers.push(provider);
    if (integration.site) sites.push(integration.site);
    for (const idp of integration.identitySites ?? []) {
      if (provider.environment !== 'sandbox')
        throw new Error(`integration ${integration.slug}: only sandbox providers have simulated sites`);
      if (slugs.has(idp.slug) || sites.some((s) => s.slug === idp.slug))
        throw new Error(`integration ${integration.slug}: site ${idp.slug} is listed twice`);
      sites.push(idp);
    }
    playbooks.push(...integration.playbooks);
  }
  return { providers, sites, playbooks };
}

/** A folder's parts must agree on the slug: it names the site's host, the session cookie and the playbooks' provider. */
function checkIntegration(integration: Integration, provider: ProviderDefinition, seen: Set<string>): void {
  const where = `integration ${integration.slug}`;
  if (seen.has(integration.slug)) throw new Error(`${where} is listed twice`);
  if (provider.slug !== integration.slug) throw new Error(`${where}: its provider's slug is ${provider.slug}`);
  if (integration.site && integration.site.slug !== integration.slug)
    throw new Error(`${where}: its site's slug is ${integration.site.slug}`);
  if (integration.site && provider.environment !== 'sandbox') throw new Error(`${where}: only sandbox providers have a simulated site`);
  for (const p of integration.playbooks) {
    if (p.providerSlug !== integration.slug) throw new Error(`${where}: playbook ${p.name} is for ${p.providerSlug}`);
  }
}
