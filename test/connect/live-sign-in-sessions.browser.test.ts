import http from 'node:http';

import {
  api,
  clickOnStream,
  context,
  createLinkToken,
  eventually,
  expectStatus,
  IDLE_SECONDS,
  linkSessionOf,
  livePage,
  openLiveWidget,
  server,
  useLiveSignInServer,
} from './live-sign-in-support';

/**
 * Live sign-in (see live-sign-in.browser.test.ts), this file: the live session's lifecycle and its socket: closing the
 * widget ends it, a dropped socket reconnects to the same page, one live session per link session, a socket without
 * the token or from another origin gets nothing, the process-wide limit, the idle timeout.
 */
jest.setTimeout(180_000);

useLiveSignInServer();

describe('live sign-in in the connect widget (Lumen, no recipe)', () => {
  it('closing the widget mid-sign-in ends the live session and its browser context', async () => {
    const linkToken = await createLinkToken();
    const contextsBefore = server.services.browsers.openContexts;
    const { widget, id } = await openLiveWidget(linkToken);
    await clickOnStream(widget, id, 'button:has-text("Continue with Idp")');
    await widget.getByRole('button', { name: 'Close', exact: true }).click();
    await eventually(
      () => server.services.liveSignIn.has(id),
      (v) => v === false,
    );
    await eventually(
      () => server.services.browsers.openContexts,
      (v) => v === contextsBefore,
    );
    expect(await linkSessionOf(linkToken)).toMatchObject({ status: 'EXITED', errorCode: 'USER_CLOSED' });
  });

  it('the socket drops and the widget reconnects to the same live page', async () => {
    const linkToken = await createLinkToken();
    const widget = await context.newPage();
    let sockets = 0;
    const routes: { close(o: { code: number }): Promise<void> }[] = [];
    await widget.routeWebSocket(/\/live$/, (ws) => {
      sockets++;
      ws.connectToServer();
      routes.push(ws);
    });
    await widget.goto(api(`/link?token=${encodeURIComponent(linkToken)}`));
    await widget.getByRole('button', { name: 'Continue' }).click();
    await expectStatus(widget, 'LIVE');
    const id = (await linkSessionOf(linkToken)).id;
    const page = livePage(id);
    await routes[0].close({ code: 4000 });
    await eventually(
      () => sockets,
      (v) => v === 2,
      20_000,
    );
    await expectStatus(widget, 'LIVE');
    // The same live page, not a new one; and input flows again.
    expect(livePage(id)).toBe(page);
    await clickOnStream(widget, id, 'button:has-text("Continue with Idp")');
    await livePage(id).waitForURL(/^http:\/\/idp\.sandbox\.localhost:\d+\/login/);
  });

  it('one live session per link session: a second socket joins (and replaces) the first, without a second browser', async () => {
    const linkToken = await createLinkToken();
    const { widget, id } = await openLiveWidget(linkToken);
    const contexts = server.services.browsers.openContexts;
    const other = await context.newPage();
    await other.goto(api('/link'));
    const answer = await other.evaluate(
      ({ id, linkToken }) =>
        new Promise<string>((resolve) => {
          const ws = new WebSocket(`ws://${location.host}/link/api/sessions/${id}/live`);
          ws.onopen = () => ws.send(JSON.stringify({ t: 'hello', linkToken, width: 400, height: 600 }));
          ws.onmessage = (e) => {
            if (typeof e.data === 'string' && JSON.parse(e.data).type === 'viewport') resolve('joined');
          };
          ws.onclose = (e) => resolve(`closed ${e.code}`);
        }),
      { id, linkToken },
    );
    expect(answer).toBe('joined');
    await expectStatus(widget, 'LIVE_REPLACED');
    expect(server.services.browsers.openContexts).toBe(contexts);
    expect(server.services.liveSignIn.openCount).toBe(1);
    expect(await (await fetch(api('/metrics'))).text()).toMatch(/^agentlink_live_sessions_open 1$/m);
  });

  it('a socket without the link token, or from another origin, gets nothing', async () => {
    const linkToken = await createLinkToken();
    const { id } = await openLiveWidget(linkToken);
    const other = await context.newPage();
    await other.goto(api('/link'));
    const wrong = await other.evaluate(
      (id) =>
        new Promise<number>((resolve) => {
          const ws = new WebSocket(`ws://${location.host}/link/api/sessions/${id}/live`);
          ws.onopen = () => ws.send(JSON.stringify({ t: 'hello', linkToken: 'link-sandbox-nope', width: 400, height: 600 }));
          ws.onclose = (e) => resolve(e.code);
        }),
      id,
    );
    expect(wrong).toBe(4401);
    const upgradeFrom = (origin: string) =>
      new Promise<number>((resolve, reject) => {
        const req = http.get(api(`/link/api/sessions/${id}/live`), {
          headers: {
            connection: 'Upgrade',
            upgrade: 'websocket',
            origin,
            'sec-websocket-version': '13',
            'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          },
        });
        req.on('upgrade', (_res, socket) => {
          socket.destroy();
          resolve(101);
        });
        req.on('response', (res) => resolve(res.statusCode ?? 0));
        req.on('error', reject);
      });
    expect(await upgradeFrom('http://evil.example')).toBe(403);
    expect(await upgradeFrom(server.baseUrl)).toBe(101);
  });

  it('the process holds at most AGENTLINK_LIVE_MAX_SESSIONS live sessions; the next widget shows LIVE_SESSIONS_FULL', async () => {
    await openLiveWidget(await createLinkToken({ clientUserId: 'reader-a' }));
    await openLiveWidget(await createLinkToken({ clientUserId: 'reader-b' }));
    const widget = await context.newPage();
    await widget.goto(api(`/link?token=${encodeURIComponent(await createLinkToken({ clientUserId: 'reader-c' }))}`));
    await widget.getByRole('button', { name: 'Continue' }).click();
    await expectStatus(widget, 'LIVE_SESSIONS_FULL');
    expect(await widget.locator('#al-live-status').innerText()).toMatch(/too many people/i);
    expect(await widget.getByRole('button', { name: 'Open the sign-in page again' }).isVisible()).toBe(true);
    expect(server.services.liveSignIn.openCount).toBe(2);
  });

  it('an idle live session times out: its browser closes and the widget says so', async () => {
    const linkToken = await createLinkToken();
    const contextsBefore = server.services.browsers.openContexts;
    const { widget, id } = await openLiveWidget(linkToken);
    await expectStatus(widget, 'LIVE_SESSION_TIMED_OUT', (IDLE_SECONDS + 20) * 1000);
    expect(server.services.liveSignIn.has(id)).toBe(false);
    await eventually(
      () => server.services.browsers.openContexts,
      (v) => v === contextsBefore,
    );
    // Recorded for the organization to see; the flow stays at the sign-in step.
    await eventually(
      () => linkSessionOf(linkToken),
      (s) => s.errorCode === 'LIVE_SESSION_TIMED_OUT',
    );
    expect((await linkSessionOf(linkToken)).status).toBe('CREDENTIALS');
    // Opening it again starts a fresh live page.
    await widget.getByRole('button', { name: 'Open the sign-in page again' }).click();
    await expectStatus(widget, 'LIVE');
    expect(server.services.liveSignIn.has(id)).toBe(true);
  });
});
