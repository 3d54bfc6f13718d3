import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';

import type { Browser, BrowserContext } from 'playwright-core';

import { ConfigError, loadConfig } from '../../server/config';
import { EgressPolicy, type EgressProvider, type HostNetwork, hostNetworkOf } from '../../server/egress/egress-policy';
import { type EgressBlock, type EgressProxy, startEgressProxy } from '../../server/egress/egress-proxy';
import { openFencedContext } from '../../server/egress/fenced-context';
import { resolveChecked, type Resolver } from '../../server/egress/resolve';
import { ORBIT_PROVIDER_ID } from '../../server/integrations/orbit/orbit.provider';
import { viaProxy } from '../support/egress-proxy-client';
import { type LiveServer, startBrowser, startLiveServer } from '../support/live-server';
import { type Counting, countingServer, tenant, tunnelViaProxy } from './sandbox-reach-support';

/**
 * An organization's sandbox provider names its own site (POST /api/providers with sandbox credentials), so on a
 * shared deployment a tenant could point the service's browser at the cloud metadata service, at the private
 * network around the host, or at AgentLink's own loopback ports (its /metrics answered 200 and was streamed through
 * the live view). The egress policy lets such a provider reach loopback only, never the service's own ports (API,
 * internal relay), and private ranges only when the operator allows them (AGENTLINK_SANDBOX_PRIVATE_NETWORK=allow).
 *
 * Nothing here connects to a non-loopback address: private and metadata addresses are literals the policy refuses
 * before any lookup, or the answers of an injected resolver; spies on the proxy's upstream calls prove no connection
 * was attempted. The own-port attacks go at a real AgentLink (its /metrics), whose host network is configured by
 * its composition root from its real configuration. The counting loopback servers, the tenant's provider and a CONNECT
 * through the proxy: sandbox-reach-support.ts.
 */
jest.setTimeout(60_000);

let service: LiveServer;
let relay: Counting;
let site: Counting;
let browser: Browser;
const contexts: BrowserContext[] = [];
const proxies: EgressProxy[] = [];
/** Every upstream connection the egress proxy attempted (host:port), from spies on node:http(s) and node:net. */
let upstream: string[] = [];
let proxyPorts = new Set<number>();

beforeAll(async () => {
  [relay, site] = await Promise.all([countingServer(), countingServer()]);
  // The internal relay URL on its own port (another process's view of this one): its port is the service's own too.
  service = await startLiveServer({ env: { AGENTLINK_INTERNAL_URL: `http://127.0.0.1:${relay.port}` } });
  browser = await startBrowser();
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
  await Promise.all([relay?.close(), site?.close()]);
});

beforeEach(() => {
  upstream = [];
  proxyPorts = new Set();
  const realRequest = http.request;
  const realHttpsRequest = https.request;
  const realConnect = net.connect;
  const seen = (o: unknown) => {
    const r = o as http.RequestOptions;
    if (r && typeof r === 'object' && !(r instanceof URL) && !proxyPorts.has(Number(r.port))) upstream.push(`${r.host}:${r.port}`);
  };
  jest.spyOn(http, 'request').mockImplementation(((...args: Parameters<typeof http.request>) => {
    seen(args[0]);
    return realRequest(...args);
  }) as typeof http.request);
  jest.spyOn(https, 'request').mockImplementation(((...args: Parameters<typeof https.request>) => {
    seen(args[0]);
    return realHttpsRequest(...args);
  }) as typeof https.request);
  jest.spyOn(net, 'connect').mockImplementation(((...args: unknown[]) => {
    const o = args[0] as net.TcpNetConnectOpts;
    if (typeof o === 'object') upstream.push(`${o.host}:${o.port}`);
    return (realConnect as (...a: unknown[]) => net.Socket)(...args);
  }) as typeof net.connect);
  relay.hits.length = 0;
  site.hits.length = 0;
});

afterEach(async () => {
  jest.restoreAllMocks();
  await Promise.all(contexts.splice(0).map((c) => c.close().catch(() => undefined)));
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});

/** The real egress proxy of a policy, with an optional injected resolver (counting its lookups). */
async function proxyFor(policy: EgressPolicy, answers?: Record<string, string[]>) {
  const blocked: EgressBlock[] = [];
  const lookups: string[] = [];
  const resolver: Resolver | undefined = answers
    ? async (host) => {
        lookups.push(host);
        const list = answers[host];
        if (!list) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
        return list.map((address) => ({ address, family: net.isIP(address) }));
      }
    : undefined;
  const proxy = await startEgressProxy({ policy, onBlocked: (b) => blocked.push(b), resolver });
  proxies.push(proxy);
  proxyPorts.add(Number(new URL(proxy.server).port));
  return { proxy, blocked, lookups };
}

/** A Chromium context fenced exactly as an agent run's or a sign-in's: every connection through its egress proxy. */
async function fencedPage(policy: EgressPolicy) {
  const blocked: EgressBlock[] = [];
  const context = await openFencedContext(browser, { policy, onBlocked: (b) => blocked.push(b) });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  return { page, blocked };
}

describe('sandbox providers: reach', () => {
  it('refuses the cloud metadata address 169.254.169.254 (and fd00:ec2::254), before any lookup or connection', async () => {
    const provider = tenant('http://169.254.169.254/', [
      '169.254.169.254',
      '[fd00:ec2::254]',
      '[::ffff:169.254.169.254]',
      'http://169.254.169.254:8080',
    ]);
    const policy = EgressPolicy.forProvider(provider, 'sandbox');
    for (const url of [
      'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
      'http://2852039166/latest/meta-data/', // the same address written as one number
      'http://[::ffff:169.254.169.254]/latest/meta-data/',
      'http://[fd00:ec2::254]/latest/meta-data/',
      'http://169.254.169.254:8080/',
    ]) {
      expect({ url, verdict: policy.checkUrl(url) }).toEqual({ url, verdict: expect.objectContaining({ ok: false, kind: 'non-public' }) });
    }
    expect(policy.checkTunnel('169.254.169.254:80')).toMatchObject({ ok: false, kind: 'non-public' });
    // Never, whatever the operator allows.
    const open = EgressPolicy.forProvider(provider, 'sandbox', { network: { ownPorts: [], privateNetwork: true } });
    expect(open.checkUrl('http://169.254.169.254/latest/meta-data/')).toMatchObject({ ok: false, kind: 'non-public' });
    expect(open.addressRule('169.254.169.254', 80)('169.254.169.254')).toMatch(/metadata/);
    expect(open.addressRule('169.254.169.254', 80)('169.254.10.1')).toMatch(/link-local/);

    const { proxy, blocked, lookups } = await proxyFor(policy, {});
    expect(await viaProxy(proxy, 'http://169.254.169.254/latest/meta-data/')).toBe('closed');
    expect(await tunnelViaProxy(proxy, '169.254.169.254:80')).toBe(403);
    expect(lookups).toEqual([]);
    expect(upstream).toEqual([]);
    expect(blocked.map((b) => b.reason)).toEqual([expect.stringMatching(/metadata/), expect.stringMatching(/metadata/)]);
  });

  it.each(['10.0.0.1', '192.168.1.1', '172.16.0.1', '[fd00::1]', '100.64.0.1', '[fe80::1]', '0.0.0.0'])(
    'refuses the private or local literal %s, before any lookup or connection',
    async (literal) => {
      const policy = EgressPolicy.forProvider(tenant(`http://${literal}/`, [literal]), 'sandbox');
      expect(policy.checkUrl(`http://${literal}/admin`)).toMatchObject({ ok: false, kind: 'non-public' });
      expect(policy.checkTunnel(`${literal}:80`)).toMatchObject({ ok: false, kind: 'non-public' });
      // The address rule refuses it too (for a name that would resolve to it).
      const bare = literal.replace(/^\[|\]$/g, '');
      expect(policy.addressRule(bare, 80)(bare)).toEqual(expect.any(String));

      const { proxy, blocked, lookups } = await proxyFor(policy, {});
      expect(await viaProxy(proxy, `http://${literal}/admin`)).toBe('closed');
      expect(lookups).toEqual([]);
      expect(upstream).toEqual([]);
      expect(blocked).toHaveLength(1);
    },
  );

  it('refuses a name that resolves to a private or metadata address (looked up once, never connected to)', async () => {
    const policy = EgressPolicy.forProvider(
      tenant('http://crm.tenant.example/', ['crm.tenant.example', 'meta.tenant.example', 'mixed.tenant.example']),
      'sandbox',
    );
    // A name says nothing before it is resolved: the URL itself is on the provider's site.
    expect(policy.checkUrl('http://crm.tenant.example/')).toEqual({ ok: true });
    const { proxy, blocked, lookups } = await proxyFor(policy, {
      'crm.tenant.example': ['10.1.2.3'],
      'meta.tenant.example': ['169.254.169.254'],
      // One public and one private answer: the connection could land on either.
      'mixed.tenant.example': ['93.184.216.34', '192.168.7.7'],
    });
    expect(await viaProxy(proxy, 'http://crm.tenant.example/')).toBe('closed');
    expect(await viaProxy(proxy, 'http://meta.tenant.example/latest/meta-data/')).toBe('closed');
    expect(await viaProxy(proxy, 'http://mixed.tenant.example/')).toBe('closed');
    expect(lookups).toEqual(['crm.tenant.example', 'meta.tenant.example', 'mixed.tenant.example']);
    expect(upstream).toEqual([]);
    expect(blocked.map((b) => b.reason)).toEqual([
      expect.stringMatching(/10\.1\.2\.3 \(private/),
      expect.stringMatching(/169\.254\.169\.254 \(metadata/),
      expect.stringMatching(/192\.168\.7\.7 \(private/),
    ]);
  });

  it("refuses AgentLink's own API port on loopback: its /metrics is never asked, in a real Chromium", async () => {
    // What is at stake: the service answers its metrics to loopback callers, and the browser is one.
    const direct = await fetch(`http://127.0.0.1:${service.port}/metrics`);
    expect(direct.status).toBe(200);
    await direct.text();
    upstream = []; // that was the test's own fetch (undici connects with node:net), not the proxy

    const answered = jest.spyOn(service.services.metrics, 'observeHttp');
    const provider = tenant(`http://127.0.0.1:${service.port}/`, ['127.0.0.1', '[::1]', 'localhost', 'orbit.sandbox.localhost']);
    // No network given: the one the service's composition root configured from its configuration.
    const policy = EgressPolicy.forProvider(provider, 'sandbox');
    const { page, blocked } = await fencedPage(policy);
    for (const url of [
      `http://127.0.0.1:${service.port}/metrics`,
      `http://[::1]:${service.port}/metrics`,
      `http://localhost:${service.port}/metrics`,
      // A tenant's provider claiming the built-in site's name on the service's port.
      `http://orbit.sandbox.localhost:${service.port}/`,
    ]) {
      await expect(page.goto(url)).rejects.toThrow();
    }
    // (Chromium may retry a dropped request: every refusal is counted, none let through.)
    expect(blocked.length).toBeGreaterThanOrEqual(4);
    expect(blocked.filter((b) => !b.reason.includes(`port ${service.port} on this machine is AgentLink's own`))).toEqual([]);
    expect(answered).not.toHaveBeenCalled();
    expect(upstream).toEqual([]);

    // A name that resolves to loopback is refused on the same port after its lookup.
    const named = EgressPolicy.forProvider(tenant(`http://metrics.tenant.example:${service.port}/`, ['metrics.tenant.example']), 'sandbox');
    const viaName = await proxyFor(named, { 'metrics.tenant.example': ['127.0.0.1'] });
    expect(await viaProxy(viaName.proxy, `http://metrics.tenant.example:${service.port}/metrics`)).toBe('closed');
    expect(viaName.lookups).toEqual(['metrics.tenant.example']);
    expect(answered).not.toHaveBeenCalled();
    expect(upstream).toEqual([]);
  });

  it('refuses the internal relay port (AGENTLINK_INTERNAL_URL), through the egress proxy', async () => {
    const policy = EgressPolicy.forProvider(tenant(`http://127.0.0.1:${relay.port}/`, ['127.0.0.1', 'localhost']), 'sandbox');
    const { proxy, blocked } = await proxyFor(policy);
    expect(await viaProxy(proxy, `http://127.0.0.1:${relay.port}/link/api/relay`)).toBe('closed');
    expect(await viaProxy(proxy, `http://localhost:${relay.port}/`)).toBe('closed');
    expect(await tunnelViaProxy(proxy, `127.0.0.1:${relay.port}`)).toBe(403);
    expect(relay.hits).toEqual([]);
    expect(upstream).toEqual([]);
    expect(blocked).toHaveLength(3);

    // Where the relay URL's port comes from: the configuration (also on another host, and its default port).
    const network = hostNetworkOf(loadConfig({ PORT: '4000', AGENTLINK_INTERNAL_URL: 'http://api-1.internal:4100' }));
    expect(network.ownPorts).toEqual(expect.arrayContaining([4000, 4100]));
    const other = EgressPolicy.forProvider(tenant('http://127.0.0.1:4100/', ['127.0.0.1']), 'sandbox', { network });
    expect(other.checkUrl('http://127.0.0.1:4100/')).toMatchObject({ ok: false, kind: 'non-public' });
    expect(hostNetworkOf(loadConfig({ PORT: '4000', AGENTLINK_INTERNAL_URL: 'https://api-1.internal' })).ownPorts).toContain(443);
  });

  it("never lets a tenant's site or declared identity provider reach the services AgentLink talks to (its PostgreSQL, model server, trace collector)", () => {
    const network = hostNetworkOf(
      loadConfig({
        PORT: '4000',
        DATABASE_URL: 'postgres://u:p@127.0.0.1:5433/agentlink',
        AGENTLINK_MODEL_BASE_URL: 'http://127.0.0.1:8081/v1',
        AGENTLINK_MODEL: 'm',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318',
      }),
    );
    expect(network.ownPorts).toEqual(expect.arrayContaining([4000, 5433, 8081, 4318]));
    for (const port of [5433, 8081, 4318]) {
      const policy = EgressPolicy.forProvider(tenant(`http://127.0.0.1:${port}/`, ['127.0.0.1']), 'sandbox', { network });
      expect(policy.checkUrl(`http://127.0.0.1:${port}/`)).toMatchObject({ ok: false, kind: 'non-public' });
    }
    expect(hostNetworkOf(loadConfig({ PORT: '4000', DATABASE_URL: 'postgres://u:p@db.internal/agentlink' })).ownPorts).toContain(5432);
  });

  it('lets an organization sandbox provider reach its own site on another loopback port', async () => {
    const provider = tenant(`http://127.0.0.1:${site.port}/`, ['127.0.0.1']);
    const policy = EgressPolicy.forProvider(provider, 'sandbox');
    const { proxy, blocked } = await proxyFor(policy);
    expect(await viaProxy(proxy, `http://127.0.0.1:${site.port}/home`)).toBe(200);
    const chromium = await fencedPage(policy);
    const res = await chromium.page.goto(`http://127.0.0.1:${site.port}/`);
    expect(res?.status()).toBe(200);
    expect(await chromium.page.textContent('h1')).toBe('hello');
    expect(policy.addressRule('127.0.0.1', site.port)('127.0.0.1')).toBeNull();
    expect(site.hits).toEqual(expect.arrayContaining([`GET 127.0.0.1:${site.port} /home`, `GET 127.0.0.1:${site.port} /`]));
    expect(blocked).toEqual([]);
    expect(chromium.blocked).toEqual([]);
  });

  it('keeps the built-in sandbox site working on the service’s own port (and operator providers as they were)', async () => {
    const orbit = service.services.catalogue.get(ORBIT_PROVIDER_ID, 'sandbox')!;
    expect(orbit.source ?? 'built-in').toBe('built-in');
    const policy = EgressPolicy.forProvider(orbit, 'sandbox');
    const { page, blocked } = await fencedPage(policy);
    const res = await page.goto(orbit.homeUrl);
    expect(res?.status()).toBeLessThan(400);
    expect(new URL(page.url()).host).toBe(new URL(orbit.homeUrl).host);
    expect(blocked).toEqual([]);
    expect(EgressPolicy.forSignIn(orbit, 'sandbox').checkUrl(orbit.loginUrl)).toEqual({ ok: true });

    // An operator's provider (AGENTLINK_PROVIDERS_FILE) keeps today's rule: its own host and port may be local.
    const operator: EgressProvider = { ...tenant(`http://127.0.0.1:${service.port}/`, ['127.0.0.1']), source: 'operator' };
    const operatorPolicy = EgressPolicy.forProvider(operator, 'sandbox');
    expect(operatorPolicy.checkUrl(`http://127.0.0.1:${service.port}/`)).toEqual({ ok: true });
    expect(operatorPolicy.addressRule('127.0.0.1', service.port)('127.0.0.1')).toBeNull();
  });

  it('lets a private address through only when the operator allows it (AGENTLINK_SANDBOX_PRIVATE_NETWORK=allow)', async () => {
    expect(loadConfig({}).sandboxPrivateNetwork).toBe('deny');
    expect(() => loadConfig({ AGENTLINK_SANDBOX_PRIVATE_NETWORK: 'yes' })).toThrow(ConfigError);
    const network: HostNetwork = hostNetworkOf(loadConfig({ PORT: '4000', AGENTLINK_SANDBOX_PRIVATE_NETWORK: 'allow' }));
    expect(network).toEqual({ ownPorts: [4000], privateNetwork: true });

    const provider = tenant('http://10.0.0.1/', ['10.0.0.1', 'crm.corp.example', '[fd00::1]']);
    const allowed = EgressPolicy.forProvider(provider, 'sandbox', { network });
    expect(allowed.checkUrl('http://10.0.0.1/admin')).toEqual({ ok: true });
    expect(allowed.checkUrl('http://[fd00::1]/')).toEqual({ ok: true });
    expect(allowed.addressRule('10.0.0.1', 80)('10.0.0.1')).toBeNull();
    const home = EgressPolicy.forProvider(tenant('http://crm.corp.example/', ['crm.corp.example']), 'sandbox', { network });
    const resolver: Resolver = async () => [{ address: '192.168.1.20', family: 4 }];
    expect(await resolveChecked('crm.corp.example', home.addressRule('crm.corp.example', 80), resolver)).toMatchObject({
      ok: true,
      address: '192.168.1.20',
    });
    // Without it, the same provider is refused.
    const denied = EgressPolicy.forProvider(provider, 'sandbox', { network: { ...network, privateNetwork: false } });
    expect(denied.checkUrl('http://10.0.0.1/admin')).toMatchObject({ ok: false, kind: 'non-public' });
    expect(denied.addressRule('10.0.0.1', 80)('10.0.0.1')).toMatch(/AGENTLINK_SANDBOX_PRIVATE_NETWORK=allow/);
    // What the setting does not open: metadata, link-local, and the service's own port.
    expect(allowed.addressRule('10.0.0.1', 80)('169.254.169.254')).toMatch(/metadata/);
    expect(allowed.addressRule('10.0.0.1', 80)('fe80::1')).toMatch(/link-local/);
    const own = EgressPolicy.forProvider(tenant('http://127.0.0.1:4000/', ['127.0.0.1']), 'sandbox', { network });
    expect(own.checkUrl('http://127.0.0.1:4000/metrics')).toMatchObject({ ok: false, kind: 'non-public' });
    // Nor this machine's own address on the service's port (it listens on 0.0.0.0); judged only, never connected to.
    jest.spyOn(os, 'networkInterfaces').mockReturnValue({
      eth0: [{ address: '10.9.8.7', netmask: '255.0.0.0', family: 'IPv4', mac: '02:00:00:00:00:01', internal: false, cidr: '10.9.8.7/8' }],
      eth1: [
        {
          address: '93.184.216.34',
          netmask: '255.255.255.0',
          family: 'IPv4',
          mac: '02:00:00:00:00:02',
          internal: false,
          cidr: '93.184.216.34/24',
        },
      ],
    });
    const onPort = (port: number) =>
      EgressPolicy.forProvider(tenant(`http://crm.corp.example:${port}/`, ['crm.corp.example']), 'sandbox', { network });
    expect(onPort(4000).addressRule('crm.corp.example', 4000)('10.9.8.7')).toMatch(/port 4000 on this machine is AgentLink's own/);
    expect(onPort(4001).addressRule('crm.corp.example', 4001)('10.9.8.7')).toBeNull();
    expect(onPort(4000).addressRule('crm.corp.example', 4000)('10.9.8.8')).toBeNull();
    // Its public address too, with or without the setting (the request would come from the machine itself).
    const publicHome = EgressPolicy.forProvider(tenant('http://crm.corp.example:4000/', ['crm.corp.example']), 'sandbox', {
      network: { ...network, privateNetwork: false },
    });
    expect(publicHome.addressRule('crm.corp.example', 4000)('93.184.216.34')).toMatch(/port 4000 on this machine is AgentLink's own/);
    expect(publicHome.addressRule('crm.corp.example', 4000)('93.184.216.35')).toBeNull();
  });
});
