import type { Playbook } from '../../server/agent/playbooks/registry';
import { assembleIntegrations, type Integration, INTEGRATIONS } from '../../server/integrations';
import { ProviderCatalogue } from '../../server/providers/catalogue';

const origins = { publicUrl: 'http://localhost:4000', sandboxHostSuffix: 'sandbox.localhost' };

describe('the integration list', () => {
  it('builds the catalogue, the playbooks and the simulated sites from one folder per provider', () => {
    const built = assembleIntegrations(INTEGRATIONS, origins);
    expect(built.providers.map((p) => `${p.environment}:${p.slug}`)).toEqual([
      'sandbox:orbit',
      'sandbox:forgehub',
      'sandbox:lumen',
      'sandbox:quill',
      'production:github',
      'production:linkedin',
      'production:x',
    ]);
    // Lumen's sign-in passes through the simulated identity provider, served like a site but no provider.
    // Quill is the passkey site (a WebAuthn relying party); it has no playbooks.
    expect(built.sites.map((s) => s.slug)).toEqual(['orbit', 'forgehub', 'lumen', 'idp', 'quill']);
    expect(new Set(built.playbooks.map((p) => p.providerSlug))).toEqual(new Set(['orbit', 'forgehub', 'lumen']));
    expect(built.providers.find((p) => p.slug === 'lumen')).toMatchObject({
      identityProviders: ['idp.sandbox.localhost'],
      signedIn: { cookies: ['lumen_sid'] },
    });
    expect(built.providers.find((p) => p.slug === 'lumen')?.login).toBeUndefined();
    // Sandbox declarations follow where the service is served.
    expect(built.providers[0].homeUrl).toBe('http://orbit.sandbox.localhost:4000/');
  });

  const orbit = INTEGRATIONS.find((i) => i.slug === 'orbit')!;
  const github = INTEGRATIONS.find((i) => i.slug === 'github')!;

  it.each<[string, Integration[], RegExp]>([
    ['listed twice', [orbit, orbit], /listed twice/],
    ['a provider under another slug', [{ ...orbit, slug: 'orbit2', site: undefined, playbooks: [] }], /provider's slug is orbit/],
    ['a site under another slug', [{ ...github, site: orbit.site }], /site's slug is orbit|only sandbox providers/],
    [
      'a site on a production provider',
      [{ ...github, slug: 'github', site: { ...orbit.site!, slug: 'github' } }],
      /only sandbox providers have a simulated site/,
    ],
    [
      'a playbook for another provider',
      [{ ...github, playbooks: [orbit.playbooks[0] as Playbook<unknown>] }],
      /playbook orbit\.\S+ is for orbit/,
    ],
  ])('refuses %s', (_name, list, message) => {
    expect(() => assembleIntegrations(list, origins)).toThrow(message);
  });

  it('the catalogue refuses a provider declared twice in one environment', () => {
    const { providers } = assembleIntegrations([orbit], origins);
    expect(() => new ProviderCatalogue([...providers, { ...providers[0], slug: 'other' }])).toThrow(/declared twice in sandbox/);
  });
});
