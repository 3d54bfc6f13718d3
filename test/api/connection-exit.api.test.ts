import { chooseDevice } from '../../server/browser/device-profile';
import { exitProxyAad } from '../../server/domain/connections.service';
import { describeEachStore } from '../support/app';
import {
  connectProduction,
  connectSandbox,
  createOrg,
  del,
  expectError,
  expectNoInternals,
  get,
  patch,
  productionHeaders,
  sandboxHeaders,
  type TestOrg,
} from '../support/helpers';

/**
 * A connection's device and exit in the API: GET shows the device every run presents and where its traffic leaves
 * from; PATCH sets (or removes) its upstream proxy, sealed, and shows only its label. Bad input gets a stable code.
 */
describeEachStore('connection device and exit', (t) => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await createOrg(t, 'Exit Co');
  });
  const PROXY = { url: 'http://127.0.0.1:3128', username: 'acct-42', password: 'proxy-secret-✓', label: 'Office exit' };

  it('shows no device before the first run, and a direct exit', async () => {
    const { connectionId } = await connectSandbox(t, org, { clientUserId: 'exit-1' });
    const res = await get(t, `/api/connections/${connectionId}`, sandboxHeaders(org));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ device: null, exit: { type: 'direct' } });
  });

  it('shows the stored device, field by field', async () => {
    const { connectionId } = await connectSandbox(t, org, { clientUserId: 'exit-2' });
    const device = chooseDevice(connectionId, '143.0.7499.0');
    await t.services.connections.keepDevice(connectionId, device);
    const res = await get(t, `/api/connections/${connectionId}`, sandboxHeaders(org));
    // Everything a site sees of it; the seed of its noise is not shown.
    const { noiseSeed, ...shown } = device;
    expect(noiseSeed).toEqual(expect.any(Number));
    expect(res.body.device).toStrictEqual(shown);
    // A row this version cannot read (edited by hand) shows no device rather than half of one.
    await t.store.repos.connections.setDevice(connectionId, { platform: 'Amiga' }, t.clock.now());
    expect((await get(t, `/api/connections/${connectionId}`, sandboxHeaders(org))).body.device).toBeNull();
  });

  it('PATCH sets the upstream proxy: sealed with its connection, shown by its label only, in the list too; null removes it', async () => {
    const { connectionId } = await connectSandbox(t, org, { clientUserId: 'exit-3' });
    t.clock.advance(1000);
    const res = await patch(t, `/api/connections/${connectionId}`, sandboxHeaders(org), { upstreamProxy: PROXY });
    expect(res.status).toBe(200);
    expectNoInternals(res.body);
    expect(res.body).toMatchObject({ connectionId, exit: { type: 'proxy', label: 'Office exit' }, updatedAt: t.clock.now().toISOString() });
    const text = JSON.stringify(res.body);
    for (const secret of ['proxy-secret', 'acct-42', '127.0.0.1:3128']) expect(text).not.toContain(secret);

    const row = (await t.store.repos.connections.findById(connectionId))!;
    expect(row.sealedExitProxy).toMatch(/^v1\./);
    expect(row.sealedExitProxy).not.toContain('proxy-secret');
    expect(t.services.connections.openExitProxy(row)).toEqual({
      host: '127.0.0.1',
      port: 3128,
      username: 'acct-42',
      password: 'proxy-secret-✓',
    });
    // Sealed for this connection only: under another connection's associated data it does not open.
    expect(() => t.services.vault.open(row.sealedExitProxy!, exitProxyAad('conn_other'))).toThrow();

    const listed = await get(t, '/api/connections?clientUserId=exit-3', sandboxHeaders(org));
    expect(listed.body.data[0].exit).toEqual({ type: 'proxy', label: 'Office exit' });

    const removed = await patch(t, `/api/connections/${connectionId}`, sandboxHeaders(org), { upstreamProxy: null });
    expect(removed.body.exit).toEqual({ type: 'direct' });
    expect((await t.store.repos.connections.findById(connectionId))!.sealedExitProxy).toBeNull();
  });

  it('labels an exit by host and port when no label is given (IPv6 in brackets)', async () => {
    const { connectionId } = await connectSandbox(t, org, { clientUserId: 'exit-4' });
    const res = await patch(t, `/api/connections/${connectionId}`, sandboxHeaders(org), { upstreamProxy: { url: 'http://[::1]:8080' } });
    expect(res.body.exit).toEqual({ type: 'proxy', label: '[::1]:8080' });
    const plain = await patch(t, `/api/connections/${connectionId}`, sandboxHeaders(org), {
      upstreamProxy: { url: 'http://Proxy.Example.NET' },
    });
    expect(plain.body.exit).toEqual({ type: 'proxy', label: 'proxy.example.net:80' });
  });

  it('refuses a proxy that is not http://host:port, or carries credentials in its URL (UPSTREAM_PROXY_NOT_ALLOWED)', async () => {
    const { connectionId } = await connectSandbox(t, org, { clientUserId: 'exit-5' });
    const path = `/api/connections/${connectionId}`;
    for (const [url, message] of [
      ['https://proxy.example.net:443', /must be http:\/\/host:port/],
      ['socks5://proxy.example.net:1080', /must be http:\/\/host:port/],
      ['http://user:pass@proxy.example.net:8080', /must not carry credentials/],
      ['http://proxy.example.net:8080/path', /only a scheme, host and port/],
      ['http://proxy.example.net.:8080', /canonical form/],
      ['not a url', /not an absolute URL/],
    ] as const) {
      const res = await patch(t, path, sandboxHeaders(org), { upstreamProxy: { url } });
      expectError(res, 'UPSTREAM_PROXY_NOT_ALLOWED', { message });
      expect(JSON.stringify(res.body)).not.toContain('pass@');
    }
  });

  it('refuses a local or private proxy for a production connection', async () => {
    const { connectionId } = await connectProduction(t, org, { clientUserId: 'exit-prod' });
    for (const url of ['http://127.0.0.1:3128', 'http://10.0.0.8:3128', 'http://proxy.internal:3128', 'http://localhost:3128']) {
      expectError(
        await patch(t, `/api/connections/${connectionId}`, productionHeaders(org), { upstreamProxy: { url } }),
        'UPSTREAM_PROXY_NOT_ALLOWED',
        {
          message: /a local or private host/,
        },
      );
    }
    const ok = await patch(t, `/api/connections/${connectionId}`, productionHeaders(org), {
      upstreamProxy: { url: 'http://203.0.114.9:3128' },
    });
    expect(ok.status).toBe(200);
  });

  it('checks the body: unknown fields, lone credentials, a colon in the username, over-long or control characters (INVALID_FIELD)', async () => {
    const { connectionId } = await connectSandbox(t, org, { clientUserId: 'exit-6' });
    const path = `/api/connections/${connectionId}`;
    const url = 'http://127.0.0.1:3128';
    for (const body of [
      {},
      { upstreamProxy: { url }, device: {} },
      { upstreamProxy: { url, port: 1 } },
      { upstreamProxy: { url: 'x'.repeat(301) } },
      { upstreamProxy: { url, username: 'u'.repeat(257), password: 'p' } },
      { upstreamProxy: { url, label: 'line\nbreak' } },
      { upstreamProxy: { url, password: 'p\u0000', username: 'u' } },
    ]) {
      expectError(await patch(t, path, sandboxHeaders(org), body), 'INVALID_FIELD', { details: expect.any(Array) });
    }
    expectError(await patch(t, path, sandboxHeaders(org), { upstreamProxy: { url, username: 'u' } }), 'INVALID_FIELD', {
      details: [{ path: 'upstreamProxy.password', message: 'required with the other one' }],
    });
    expectError(await patch(t, path, sandboxHeaders(org), { upstreamProxy: { url, username: 'a:b', password: 'p' } }), 'INVALID_FIELD', {
      details: [{ path: 'upstreamProxy.username', message: 'must not contain ":"' }],
    });
  });

  it('answers as if another organization’s or an unknown connection did not exist, and 409 once revoked; a revoke forgets the exit', async () => {
    const { connectionId } = await connectSandbox(t, org, { clientUserId: 'exit-7' });
    const other = await createOrg(t, 'Other Exit Co');
    expectError(
      await patch(t, `/api/connections/${connectionId}`, sandboxHeaders(other), { upstreamProxy: PROXY }),
      'CONNECTION_NOT_FOUND',
    );
    expectError(
      await patch(t, '/api/connections/conn_000000000000000000000000', sandboxHeaders(org), { upstreamProxy: PROXY }),
      'CONNECTION_NOT_FOUND',
    );
    expect((await patch(t, `/api/connections/${connectionId}`, sandboxHeaders(org), { upstreamProxy: PROXY })).status).toBe(200);
    const revoked = await del(t, `/api/connections/${connectionId}`, sandboxHeaders(org));
    expect(revoked.body.exit).toEqual({ type: 'direct' });
    expect((await t.store.repos.connections.findById(connectionId))!.sealedExitProxy).toBeNull();
    expectError(await patch(t, `/api/connections/${connectionId}`, sandboxHeaders(org), { upstreamProxy: PROXY }), 'CONNECTION_REVOKED');
  });

  it('re-seals the exit with the rest after a key rotation', async () => {
    const { connectionId } = await connectSandbox(t, org, { clientUserId: 'exit-8' });
    await patch(t, `/api/connections/${connectionId}`, sandboxHeaders(org), { upstreamProxy: PROXY });
    const byKey = await t.services.connections.sealedValuesByKey();
    const total = Object.values(byKey).reduce((n, v) => n + v, 0);
    const report = await t.services.connections.resealAll();
    expect(report.scanned).toBe(total);
    expect(report.failed).toBe(0);
  });
});
