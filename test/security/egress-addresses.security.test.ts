import { checkWebhookTarget } from '../../server/domain/webhooks/webhook-url.policy';
import { nonPublicRange } from '../../server/egress/addresses';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { resolveChecked } from '../../server/egress/resolve';

/**
 * The egress policy's decisions without a browser: the production address table under every encoding WHATWG URL
 * normalises, exact origins (the default port of a provider on another port: port 80 is never bound in tests),
 * resolution that checks every address, and webhook registration refusals.
 */
const orbit = { name: 'Orbit', homeUrl: 'http://orbit.sandbox.localhost:4000/', allowedOrigins: ['orbit.sandbox.localhost'] };
const github = { name: 'GitHub', homeUrl: 'https://github.com/', allowedOrigins: ['github.com', '127.0.0.1', '[::1]', 'localhost'] };

describe('egress: addresses and exact origins', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'metadata'],
    ['169.254.1.1', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['::7f00:1', 'IPv4-compatible'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['fd00:ec2::254', 'metadata'],
    ['fc00::1', 'private'],
    ['fe80::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['64:ff9b::7f00:1', 'NAT64'],
    ['2002:7f00:1::', '6to4'],
  ])('refuses %s (%s) in production', (address, label) => {
    expect(nonPublicRange(address)).toBe(label);
  });

  it.each(['8.8.8.8', '140.82.112.3', '2606:4700::1111'])('refuses nothing public: %s', (address) => {
    expect(nonPublicRange(address)).toBeNull();
  });

  it.each([
    'https://2130706433/',
    'https://0x7f.0.0.1/',
    'https://0177.0.0.1/',
    'https://127.1/',
    'https://[::ffff:7f00:1]/',
    'https://[::7f00:1]/',
    'https://localhost/',
    'https://localhost./',
    'https://a.localhost/',
  ])('refuses loopback under any encoding in production: %s', (url) => {
    expect(EgressPolicy.forProvider(github, 'production').checkUrl(url).ok).toBe(false);
  });

  it('refuses the default port, a subdomain and a trailing dot of a provider on port 4000', () => {
    const p = EgressPolicy.forProvider(orbit, 'sandbox');
    expect(p.checkUrl('http://orbit.sandbox.localhost:4000/x').ok).toBe(true);
    expect(p.checkUrl('ws://orbit.sandbox.localhost:4000/x', { webSockets: true }).ok).toBe(true);
    expect(p.checkUrl('http://orbit.sandbox.localhost/x')).toMatchObject({ ok: false, kind: 'port' });
    expect(p.checkUrl('http://x.orbit.sandbox.localhost:4000/')).toMatchObject({ ok: false, kind: 'host' });
    expect(p.checkUrl('http://orbit.sandbox.localhost.:4000/')).toMatchObject({ ok: false, kind: 'host' });
    expect(p.checkUrl('https://orbit.sandbox.localhost:4000/')).toMatchObject({ ok: false, kind: 'scheme' });
    expect(p.checkTunnel('orbit.sandbox.localhost:80')).toMatchObject({ ok: false, kind: 'port' });
    expect(p.checkTunnel('orbit.sandbox.localhost:4000').ok).toBe(true);
  });

  it('refuses loopback in the sandbox for any host:port but the provider home', () => {
    const p = EgressPolicy.forProvider({ ...orbit, allowedOrigins: ['orbit.sandbox.localhost', 'cdn.sandbox.localhost'] }, 'sandbox');
    expect(p.addressRule('orbit.sandbox.localhost', 4000)('127.0.0.1')).toBeNull();
    expect(p.addressRule('cdn.sandbox.localhost', 4000)('127.0.0.1')).toMatch(/loopback/);
  });

  it('identity providers are reachable only in a sign-in, and (sandbox) locally only on the provider home port', () => {
    const lumen = {
      name: 'Lumen',
      homeUrl: 'http://lumen.sandbox.localhost:4000/',
      allowedOrigins: ['lumen.sandbox.localhost'],
      identityProviders: ['idp.sandbox.localhost'],
    };
    // An agent run never goes to the identity provider.
    expect(EgressPolicy.forProvider(lumen, 'sandbox').checkUrl('http://idp.sandbox.localhost:4000/authorize')).toMatchObject({
      ok: false,
      kind: 'host',
    });
    const signIn = EgressPolicy.forSignIn(lumen, 'sandbox');
    expect(signIn.checkUrl('http://idp.sandbox.localhost:4000/authorize').ok).toBe(true);
    expect(signIn.checkUrl('http://idp.sandbox.localhost:4001/authorize')).toMatchObject({ ok: false, kind: 'port' });
    expect(signIn.checkUrl('http://help.lumen.example/')).toMatchObject({ ok: false, kind: 'host' });
    expect(signIn.addressRule('idp.sandbox.localhost', 4000)('127.0.0.1')).toBeNull();
    expect(signIn.addressRule('idp.sandbox.localhost', 4001)('127.0.0.1')).toMatch(/loopback/);
    expect(EgressPolicy.forProvider(lumen, 'sandbox').addressRule('idp.sandbox.localhost', 4000)('127.0.0.1')).toMatch(/loopback/);
    // In production an identity provider is public like everything else.
    expect(
      EgressPolicy.forSignIn({ ...lumen, homeUrl: 'https://lumen.example/' }, 'production').addressRule(
        'idp.sandbox.localhost',
        443,
      )('127.0.0.1'),
    ).toMatch(/loopback/);
  });

  it('refuses a name when any one of its addresses is not public (no fallback to the public one)', async () => {
    const resolver = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    const r = await resolveChecked('hooks.example.com', nonPublicRange, resolver);
    expect(r).toMatchObject({ ok: false, reason: 'hooks.example.com resolves to 10.0.0.7 (private)' });
  });

  it.each(['https://localhost./', 'https://[::7f00:1]/', 'https://198.18.0.1/', 'https://[::ffff:169.254.169.254]/'])(
    'refuses the production webhook URL %s at registration',
    async (url) => {
      expect(await checkWebhookTarget(url, 'production', 'development', async () => [])).toMatchObject({ ok: false });
    },
  );

  it('refuses a production webhook whose host resolves inward at registration', async () => {
    const resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const v = await checkWebhookTarget('https://hooks.example.com/x', 'production', 'development', resolver);
    expect(v).toMatchObject({ ok: false, reason: expect.stringMatching(/resolves to 127\.0\.0\.1 \(loopback\)/) });
  });
});
