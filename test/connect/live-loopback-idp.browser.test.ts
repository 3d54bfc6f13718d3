import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Locator, Page } from 'playwright-core';

import { hashToken } from '../../server/domain/tokens';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { type LiveServer, startLiveServer } from '../support/live-server';

/**
 * A helpdesk run the way a developer runs it: the app on one loopback port and its identity provider (a local
 * Keycloak) on another. Before, its declaration was refused ("would be blocked during sign-in … only 127.0.0.1:<app>
 * may be local"). Now an organization's sandbox provider declares the IdP's port and signs in through it in the live
 * view; a loopback port it did not declare stays blocked (the IdP page's link to one is never fetched), and this
 * service's own port is refused as an identity provider with the policy's reason.
 */
jest.setTimeout(120_000);

const SESSION = 'desk_session';

interface Site {
  server: http.Server;
  origin: string;
  hits: string[];
}

function listen(handler: (req: http.IncomingMessage, res: http.ServerResponse, site: Site) => void): Promise<Site> {
  const site = { hits: [] as string[] } as unknown as Site;
  site.server = http.createServer((req, res) => {
    site.hits.push(`${req.method} ${req.url}`);
    handler(req, res, site);
  });
  return new Promise((resolve) =>
    site.server.listen(0, '127.0.0.1', () => {
      site.origin = `http://127.0.0.1:${(site.server.address() as AddressInfo).port}`;
      resolve(site);
    }),
  );
}

const html = (res: http.ServerResponse, body: string) =>
  res
    .writeHead(200, { 'content-type': 'text/html' })
    .end(`<!doctype html><html lang="en"><meta charset="utf-8"><body>${body}</body></html>`);

let service: LiveServer;
let app: Site;
let idp: Site;
let stray: Site;
let creds: Record<string, string>;
/** Codes the IdP issued, one use each. */
const codes = new Set<string>();

beforeAll(async () => {
  stray = await listen((_req, res) => html(res, '<h1>Not the IdP</h1>'));
  idp = await listen((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/authorize' && req.method === 'POST') {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const f = new URLSearchParams(raw);
        if (f.get('username') !== 'agent' || f.get('password') !== 'desk-pass')
          return void res.writeHead(303, { location: '/authorize' }).end();
        const code = `c${codes.size + 1}${Date.now()}`;
        codes.add(code);
        res.writeHead(303, { location: `${app.origin}/callback?code=${code}` }).end();
      });
      return;
    }
    if (url.pathname === '/authorize') {
      return void html(
        res,
        `<h1>Acme SSO</h1><form method="post" action="/authorize">
          <label for="username">Username</label><input id="username" name="username">
          <label for="password">Password</label><input id="password" name="password" type="password">
          <button id="go" type="submit">Sign in</button></form>
        <p><a id="help" href="${stray.origin}/help">Help</a></p>`,
      );
    }
    res.writeHead(404).end();
  });
  app = await listen((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/callback' && codes.delete(url.searchParams.get('code') ?? '')) {
      return void res.writeHead(303, { location: '/tickets', 'set-cookie': `${SESSION}=s1; Path=/; HttpOnly` }).end();
    }
    if (url.pathname === '/tickets' && (req.headers.cookie ?? '').includes(`${SESSION}=`)) {
      return void html(res, '<main id="tickets"><h1>Tickets</h1></main>');
    }
    if (url.pathname === '/login')
      return void html(res, `<h1>Helpdesk</h1><a id="sso" href="${idp.origin}/authorize">Sign in with Acme SSO</a>`);
    res.writeHead(302, { location: '/login' }).end();
  });
  service = await startLiveServer();
  const org = await service.services.organizations.create('Loopback IdP Co');
  creds = { 'content-type': 'application/json', 'x-client-id': org.clientId, 'x-client-secret': org.sandboxSecret };
});

afterAll(async () => {
  await service?.services.liveSignIn.closeAll();
  await service?.services.browsers.close();
  await service?.close();
  for (const s of [app, idp, stray]) {
    s?.server.closeAllConnections();
    await new Promise((resolve) => s?.server.close(resolve));
  }
});

async function post(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${service.baseUrl}${path}`, { method: 'POST', headers: creds, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const declaration = (slug: string, identityProviders: string[]) => ({
  name: `Helpdesk ${slug}`,
  slug,
  category: 'helpdesk',
  homeUrl: `${app.origin}/tickets`,
  loginUrl: `${app.origin}/login`,
  allowedOrigins: [app.origin],
  identityProviders,
  signedIn: { cookies: [SESSION], element: '#tickets' },
});

/** Points at `selector` on the live page through the widget's canvas (scaled) and clicks. */
async function clickOnCanvas(widget: Page, canvas: Locator, live: Page, selector: string) {
  const box = (await live.locator(selector).boundingBox())!;
  const viewport = live.viewportSize()!;
  const c = (await canvas.boundingBox())!;
  await widget.mouse.click(
    c.x + ((box.x + box.width / 2) * c.width) / viewport.width,
    c.y + ((box.y + box.height / 2) * c.height) / viewport.height,
  );
}

describe('an identity provider on another loopback port (sandbox)', () => {
  it('is declared, and the sign-in goes through it in the live view; an undeclared loopback port stays blocked', async () => {
    const declared = await post('/api/providers', declaration('desk-two-ports', [idp.origin]));
    expect([declared.status, declared.json.identityProviders]).toEqual([201, [idp.origin]]);

    const { json } = await post('/api/link-token', { clientUserId: 'agent-1', providerId: declared.json.providerId });
    const linkToken = json.linkToken as string;
    const person = await service.services.browsers.newContext({ viewport: { width: 420, height: 820 } });
    try {
      const widget = await person.newPage();
      widget.setDefaultTimeout(30_000);
      await widget.goto(`${service.baseUrl}/link?token=${encodeURIComponent(linkToken)}`);
      await widget.getByRole('button', { name: 'Continue' }).click();
      const canvas = widget.locator('#al-live-canvas');
      await canvas.waitFor({ state: 'visible' });
      await widget.locator('#al-live-status[data-code="LIVE"]').waitFor({ state: 'attached' });
      const token = (await service.services.store.repos.linkTokens.findByHash(hashToken(linkToken)))!;
      const [session] = await service.services.store.repos.linkSessions.listForLinkToken(token.id);
      const live = service.services.liveSignIn.inspect(session!.id)!;

      await clickOnCanvas(widget, canvas, live, '#sso');
      await live.waitForURL(`${idp.origin}/authorize`);
      // The attack: a link on the IdP's page to another loopback port nobody declared. Refused, never fetched.
      await clickOnCanvas(widget, canvas, live, '#help');
      await widget.locator('#al-live-status[data-code="NAVIGATION_BLOCKED"]').waitFor({ state: 'attached' });
      expect(stray.hits).toEqual([]);
      await live.waitForURL(/\/(authorize|login)$/);
      if (!live.url().startsWith(idp.origin)) {
        await clickOnCanvas(widget, canvas, live, '#sso');
        await live.waitForURL(`${idp.origin}/authorize`);
      }

      await clickOnCanvas(widget, canvas, live, '#username');
      await widget.keyboard.type('agent', { delay: 10 });
      await clickOnCanvas(widget, canvas, live, '#password');
      await widget.keyboard.type('desk-pass', { delay: 10 });
      await widget.keyboard.press('Enter');
      await widget.getByRole('heading', { name: 'Connected!' }).waitFor();
      const [done] = await service.services.store.repos.linkSessions.listForLinkToken(token.id);
      expect(done!.status).toBe('SUCCEEDED');
      expect(idp.hits).toContain('POST /authorize');
      expect(stray.hits).toEqual([]);
    } finally {
      await person.close();
    }
  });

  it("allows exactly the declared ports: the sign-in's policy refuses another loopback port, runs never reach the IdP", () => {
    const provider = { ...declaration('policy', [idp.origin]), name: 'Helpdesk', source: 'organization' as const };
    const signIn = EgressPolicy.forSignIn(provider, 'sandbox');
    const idpPort = Number(new URL(idp.origin).port);
    const strayPort = Number(new URL(stray.origin).port);
    expect(signIn.checkUrl(`${idp.origin}/authorize`)).toEqual({ ok: true });
    expect(signIn.addressRule('127.0.0.1', idpPort)('127.0.0.1')).toBeNull();
    expect(signIn.checkUrl(`${stray.origin}/help`)).toMatchObject({ ok: false, kind: 'port' });
    expect(signIn.addressRule('127.0.0.1', strayPort)('127.0.0.1')).toMatch(/only .* may be local/);
    // An agent run is not a sign-in: the identity provider is not among its origins.
    expect(EgressPolicy.forProvider(provider, 'sandbox').checkUrl(`${idp.origin}/authorize`)).toMatchObject({ ok: false });
    // Production keeps public addresses only.
    expect(EgressPolicy.forSignIn(provider, 'production').checkUrl(`${idp.origin}/authorize`)).toMatchObject({
      ok: false,
      kind: 'non-public',
    });
  });

  it("refuses this service's own port as an identity provider, with a clear error", async () => {
    const own = new URL(service.baseUrl);
    const res = await post('/api/providers', declaration('desk-own-port', [`http://127.0.0.1:${own.port}`]));
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({
      code: 'PROVIDER_DECLARATION_INVALID',
      message: `identityProviders[0]: http://127.0.0.1:${own.port} would be blocked during sign-in: 127.0.0.1:${own.port}: port ${own.port} on this machine is AgentLink's own`,
    });
  });
});
