import http from 'node:http';

import { ConfigError, loadConfig } from '../../server/config';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { socketUpgradeStatus } from '../support/socket-upgrade';

/**
 * The live view's WebSocket (server/connect/live/live-socket.ts) opens only for the widget's own origins, from the
 * configuration: AGENTLINK_PUBLIC_URL's and AGENTLINK_WIDGET_ORIGINS. An Origin that merely equals the Host the
 * request came with is not one of them: a sandbox site is served by this very server under its own host name, and a
 * DNS-rebinding name can point at it too, and either page would name itself in both headers.
 *
 * The session id need not exist: the origin is judged before anything else (an allowed origin then waits for hello).
 */
const WIDGET_ALIAS = 'https://connect.example.com';

let server: LiveServer;
const SOCKET_PATH = '/link/api/sessions/lses_origin_probe/live';

beforeAll(async () => {
  server = await startLiveServer({ env: { AGENTLINK_WIDGET_ORIGINS: `${WIDGET_ALIAS}/` } });
}, 60_000);

afterAll(async () => {
  await server?.close();
});

/** A raw upgrade request to the server's socket with the given Host and Origin; resolves with the status (101 = opened). */
function upgrade(headers: { host?: string; origin?: string }, pathname = SOCKET_PATH): Promise<number> {
  return socketUpgradeStatus(server.port, pathname, headers);
}

/** A plain GET with a Host header (what a browser on that host name gets from this server): status and content type. */
function getWithHost(host: string, pathname: string): Promise<{ status: number; type: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: server.port, path: pathname, headers: { host } }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? '') });
    });
    req.on('error', reject);
  });
}

describe('live view socket: origins', () => {
  it("refuses a sandbox site's page of this very server (its Origin equal to the Host it came on)", async () => {
    const sandboxHost = new URL(server.siteUrl('orbit')).host;
    // The attack is real: this server does serve the sandbox site under that host name.
    expect(await getWithHost(sandboxHost, '/login')).toEqual({ status: 200, type: expect.stringMatching(/^text\/html/) });
    expect(await upgrade({ host: sandboxHost, origin: `http://${sandboxHost}` })).toBe(403);
  });

  it('refuses a DNS-rebinding name (its Origin equal to the Host it came on)', async () => {
    const rebound = `rebind.example:${server.port}`;
    expect(await upgrade({ host: rebound, origin: `http://${rebound}` })).toBe(403);
    // Nor does 127.0.0.1, the address the server listens on, count when it is not a configured origin.
    const loopback = `127.0.0.1:${server.port}`;
    expect(await upgrade({ host: loopback, origin: `http://${loopback}` })).toBe(403);
  });

  it('refuses an upgrade without an Origin, whatever the Host', async () => {
    expect(await upgrade({})).toBe(403);
    expect(await upgrade({ host: `localhost:${server.port}`, origin: '' })).toBe(403);
    expect(await upgrade({ host: `localhost:${server.port}`, origin: 'null' })).toBe(403);
  });

  it("opens for the configured widget origins only: AGENTLINK_PUBLIC_URL's and AGENTLINK_WIDGET_ORIGINS", async () => {
    expect(server.services.config.widgetOrigins).toEqual([server.baseUrl, WIDGET_ALIAS]);
    expect(await upgrade({ origin: server.baseUrl })).toBe(101);
    // The configured origin opens it whatever Host the request came on (a proxy in front may rewrite it).
    expect(await upgrade({ host: `rebind.example:${server.port}`, origin: server.baseUrl })).toBe(101);
    expect(await upgrade({ host: 'connect.example.com', origin: WIDGET_ALIAS })).toBe(101);
    // Near misses of the configured origins are not them.
    expect(await upgrade({ origin: `${server.baseUrl}/` })).toBe(403);
    expect(await upgrade({ origin: server.baseUrl.replace('http:', 'https:') })).toBe(403);
    expect(await upgrade({ origin: 'http://connect.example.com' })).toBe(403);
    expect(await upgrade({ origin: `${WIDGET_ALIAS}.evil.example` })).toBe(403);
  });

  it('AGENTLINK_WIDGET_ORIGINS takes origins only, and never a sandbox site of this server', () => {
    const load = (origins: string) => loadConfig({ PORT: '4000', AGENTLINK_WIDGET_ORIGINS: origins });
    expect(load('').widgetOrigins).toEqual(['http://localhost:4000']);
    expect(load(' https://A.example.com/ , http://b.example:8080,https://a.example.com').widgetOrigins).toEqual([
      'http://localhost:4000',
      'https://a.example.com',
      'http://b.example:8080',
    ]);
    for (const bad of [
      '*',
      'null',
      'a.example.com',
      'https://a.example.com/link',
      'https://a.example.com?x',
      'ftp://a.example.com',
      'https://u:p@a.example.com',
    ]) {
      expect(() => load(bad)).toThrow(ConfigError);
    }
    expect(() => load('http://orbit.sandbox.localhost:4000')).toThrow(/sandbox site/);
  });
});
