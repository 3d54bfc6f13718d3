import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { hashToken } from '../../server/domain/tokens';
import { type LiveServer, startLiveServer } from '../support/live-server';

/**
 * End to end, an organization's own provider: it is declared through the API for a small sign-in site on this
 * machine (loopback, allowed in the sandbox) with a declarative login recipe; a link token names it; the widget's
 * recipe path (its /link/api steps, a real Chromium through the egress proxy) signs in; the public token becomes a
 * connection of that provider.
 */
jest.setTimeout(90_000);

const SESSION_COOKIE = 'acme_session';

/** A sign-in site: a labelled form, an alert on a wrong password, a session cookie and a redirect on success. */
function startSite(): Promise<{ server: http.Server; origin: string; signIns: number[] }> {
  const signIns: number[] = [];
  const page = (body: string) =>
    `<!doctype html><html lang="en"><head><title>Acme CRM</title></head><body><main>${body}</main></body></html>`;
  const form = (alert = '') =>
    page(`<h1>Sign in to Acme CRM</h1>${alert ? `<p role="alert">${alert}</p>` : ''}
<form method="post" action="/login">
  <label for="email">Work email</label><input id="email" name="email" type="email">
  <label for="password">Password</label><input id="password" name="password" type="password">
  <button type="submit">Sign in</button>
</form>`);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/login' && req.method === 'GET') return void res.writeHead(200, { 'content-type': 'text/html' }).end(form());
    if (url.pathname === '/login' && req.method === 'POST') {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const fields = new URLSearchParams(raw);
        if (fields.get('email') === 'ada@acme.example' && fields.get('password') === 'correct-horse') {
          signIns.push(Date.now());
          res.writeHead(303, { location: '/home', 'set-cookie': `${SESSION_COOKIE}=s-${signIns.length}; Path=/; HttpOnly` }).end();
        } else {
          res.writeHead(200, { 'content-type': 'text/html' }).end(form('Wrong email or password.'));
        }
      });
      return;
    }
    if (url.pathname === '/home' && (req.headers.cookie ?? '').includes(`${SESSION_COOKIE}=`)) {
      return void res.writeHead(200, { 'content-type': 'text/html' }).end(page('<h1>Pipeline</h1><nav id="account-menu">Ada</nav>'));
    }
    res.writeHead(302, { location: '/login' }).end();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, signIns })),
  );
}

let service: LiveServer;
let site: Awaited<ReturnType<typeof startSite>>;
let creds: Record<string, string>;

beforeAll(async () => {
  [service, site] = await Promise.all([startLiveServer(), startSite()]);
  const org = await service.services.organizations.create('Own Provider Co');
  creds = { 'x-client-id': org.clientId, 'x-client-secret': org.sandboxSecret };
});

afterAll(async () => {
  await service?.services.loginEngine.close();
  await service?.services.browsers.close();
  await service?.close();
  await new Promise((resolve) => site?.server.close(resolve));
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = Record<string, any>;

async function call(method: string, path: string, opts: { headers?: Record<string, string>; body?: unknown } = {}) {
  const res = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers: { ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  return { status: res.status, body: (await res.json()) as Body };
}

function declaration() {
  return {
    name: 'Acme CRM',
    slug: 'acme-crm',
    category: 'developer',
    homeUrl: `${site.origin}/`,
    loginUrl: `${site.origin}/login`,
    allowedOrigins: ['127.0.0.1'],
    logo: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"><circle cx="4" cy="4" r="4"/></svg>',
    signedIn: { cookies: [SESSION_COOKIE], urlPattern: '/home$', element: '#account-menu' },
    login: {
      usernameLabel: 'Work email',
      form: {
        username: { label: { pattern: 'work e-?mail', flags: 'i' } },
        password: { label: 'Password' },
        submit: { role: 'button', name: 'Sign in' },
      },
      success: [{ cookie: SESSION_COOKIE, path: { pattern: '^/home$' } }],
      invalidCredentials: [{ alert: { pattern: 'wrong email or password', flags: 'i' } }],
      locked: [{ heading: { pattern: 'locked', flags: 'i' } }],
    },
  };
}

it('an organization declares a provider, and a person connects to it through the widget’s recipe path', async () => {
  const created = await call('POST', '/api/providers', { headers: creds, body: declaration() });
  expect(created.status).toBe(201);
  const providerId = created.body.providerId as string;

  const token = await call('POST', '/api/link-token', { headers: creds, body: { clientUserId: 'ada', providerId } });
  expect(token.status).toBe(200);
  const widget = { authorization: `Bearer ${token.body.linkToken}` };
  const started = await call('POST', '/link/api/sessions', { headers: widget, body: { env: 'sandbox' } });
  expect(started.body).toMatchObject({
    providerFixed: true,
    provider: {
      providerId,
      name: 'Acme CRM',
      usernameLabel: 'Work email',
      logo: expect.stringMatching(/^data:image\/svg\+xml/),
      builtInSandbox: false,
    },
  });
  const step = (name: string, body: unknown = {}) =>
    call('POST', `/link/api/sessions/${started.body.linkSessionId}/${name}`, { headers: widget, body });
  expect((await step('consent')).body).toMatchObject({ status: 'CREDENTIALS' });

  // The recipe's failure signal: the site's alert, told to the person; the flow stays at the credentials step.
  const wrong = await step('credentials', { username: 'ada@acme.example', password: 'nope' });
  expect(wrong.body.error).toMatchObject({ code: 'INVALID_CREDENTIALS' });
  expect(site.signIns).toHaveLength(0);

  const done = await step('credentials', { username: 'ada@acme.example', password: 'correct-horse' });
  if (done.status !== 200) throw new Error(`credentials: ${done.status} ${JSON.stringify(done.body)}`);
  expect(site.signIns).toHaveLength(1);

  const exchanged = await call('POST', '/api/connections/public_token/exchange', {
    headers: creds,
    body: { publicToken: done.body.success.publicToken },
  });
  expect(exchanged.body).toMatchObject({ providerId, clientUserId: 'ada', status: 'ACTIVE' });
  const connection = await call('GET', `/api/connections/${exchanged.body.connectionId}`, { headers: creds });
  expect(connection.body).toMatchObject({ providerId, status: 'ACTIVE' });

  // The sealed session is the site's own: its session cookie, for its host.
  const record = (await service.services.store.repos.connections.findById(exchanged.body.connectionId))!;
  const session = service.services.connections.openSession(record) as { cookies: { name: string; domain: string }[] };
  expect(session.cookies).toEqual(expect.arrayContaining([expect.objectContaining({ name: SESSION_COOKIE, domain: '127.0.0.1' })]));

  // In use now: the provider cannot be deleted under its connection.
  expect((await call('DELETE', `/api/providers/${providerId}`, { headers: creds })).body.error).toMatchObject({ code: 'PROVIDER_IN_USE' });
});

it('a provider declared without a recipe connects through the live view: the person signs in on the streamed page in the widget', async () => {
  const { login: _recipe, ...rest } = declaration();
  const created = await call('POST', '/api/providers', { headers: creds, body: { ...rest, name: 'Acme Live', slug: 'acme-live' } });
  expect(created.status).toBe(201);
  const providerId = created.body.providerId as string;
  const token = await call('POST', '/api/link-token', { headers: creds, body: { clientUserId: 'grace', providerId } });
  const linkToken = token.body.linkToken as string;

  // The person's browser: the hosted widget, its live view streaming the site's sign-in page.
  const person = await service.services.browsers.newContext({ viewport: { width: 420, height: 820 } });
  try {
    const widget = await person.newPage();
    widget.setDefaultTimeout(30_000);
    await widget.goto(`${service.baseUrl}/link?token=${encodeURIComponent(linkToken)}`);
    await widget.getByRole('button', { name: 'Continue' }).click();
    const canvas = widget.locator('#al-live-canvas');
    await canvas.waitFor({ state: 'visible' });
    await widget.locator('#al-live-status[data-code="LIVE"]').waitFor({ state: 'attached' });
    // The sandbox's test users live on the built-in simulated sites only: no "sign in as user_good" under this one.
    expect(await widget.locator('.al-live').innerText()).toContain('Sign in to Acme Live');
    expect(await widget.locator('.al-sandbox').count()).toBe(0);
    expect(await widget.locator('body').innerText()).not.toContain('user_good');
    const sessions = await service.services.store.repos.linkSessions.listForLinkToken(
      (await service.services.store.repos.linkTokens.findByHash(hashToken(linkToken)))!.id,
    );
    const live = service.services.liveSignIn.inspect(sessions[sessions.length - 1]!.id)!;

    // The person sees where the fields are (read here off the live page) and points at them on the widget's canvas.
    const pointAt = async (selector: string) => {
      const target = live.locator(selector);
      await target.waitFor({ state: 'visible' });
      const box = (await target.boundingBox())!;
      const viewport = live.viewportSize()!;
      const c = (await canvas.boundingBox())!;
      await widget.mouse.click(
        c.x + ((box.x + box.width / 2) * c.width) / viewport.width,
        c.y + ((box.y + box.height / 2) * c.height) / viewport.height,
      );
    };
    await pointAt('#email');
    await widget.keyboard.type('ada@acme.example', { delay: 10 });
    await pointAt('#password');
    await widget.keyboard.type('correct-horse', { delay: 10 });
    const finished = widget.waitForResponse((r) => r.url().endsWith('/live/finish'));
    await pointAt('button[type=submit]');
    const finish = await finished;
    expect(finish.status()).toBe(200);
    const { success } = (await finish.json()) as { success: { publicToken: string } };
    await widget.getByRole('heading', { name: 'Connected!' }).waitFor();

    const exchanged = await call('POST', '/api/connections/public_token/exchange', {
      headers: creds,
      body: { publicToken: success.publicToken },
    });
    expect(exchanged.body).toMatchObject({ providerId, clientUserId: 'grace', status: 'ACTIVE' });
    const record = (await service.services.store.repos.connections.findById(exchanged.body.connectionId))!;
    const session = service.services.connections.openSession(record) as { cookies: { name: string }[] };
    expect(session.cookies.map((c) => c.name)).toContain(SESSION_COOKIE);
  } finally {
    await person.close();
  }
});
