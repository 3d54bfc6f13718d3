import http from 'node:http';
import type { AddressInfo } from 'node:net';

import express from 'express';

import { createExpressServer } from '../../server/http/express-server';

/** createExpressServer: requests and responses are born with the app's prototypes, and Express works as ever. */
describe('createExpressServer', () => {
  async function serve(server: http.Server) {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  function close(server: http.Server) {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  }
  function app() {
    const a = express();
    a.use(express.json());
    a.post('/echo/:id', (req, res) => {
      res
        .status(201)
        .set('x-echo', req.get('x-in') ?? '')
        .json({ id: req.params.id, body: req.body, query: req.query, ip: req.ip });
    });
    return a;
  }

  it('creates each request and response with app.request / app.response as prototype, before Express sees them', async () => {
    const a = app();
    const server = createExpressServer(a);
    const seen: [object | null, object | null][] = [];
    server.prependListener('request', (req, res) => seen.push([Object.getPrototypeOf(req), Object.getPrototypeOf(res)]));
    const base = await serve(server);
    try {
      await fetch(`${base}/echo/1`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      await fetch(`${base}/echo/2`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(seen).toHaveLength(2);
      for (const [req, res] of seen) {
        expect(req).toBe((a as unknown as { request: object }).request);
        expect(res).toBe((a as unknown as { response: object }).response);
      }
    } finally {
      await close(server);
    }
  });

  it('serves the app exactly as http.createServer(app) does', async () => {
    const answer = async (server: http.Server) => {
      const base = await serve(server);
      try {
        const res = await fetch(`${base}/echo/42?x=1`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-in': 'hi' },
          body: '{"a":[1,2]}',
        });
        return { status: res.status, echo: res.headers.get('x-echo'), body: await res.json() };
      } finally {
        await close(server);
      }
    };
    const expected = { status: 201, echo: 'hi', body: { id: '42', body: { a: [1, 2] }, query: { x: '1' }, ip: '127.0.0.1' } };
    // toEqual: fetch parses JSON outside the test realm, whose objects toStrictEqual would call different types.
    expect(await answer(createExpressServer(app()))).toEqual(expected);
    expect(await answer(http.createServer(app()))).toEqual(expected);
  });

  it('passes server options through', () => {
    const server = createExpressServer(app(), { keepAliveTimeout: 1234, requestTimeout: 5678 });
    expect(server.keepAliveTimeout).toBe(1234);
    expect(server.requestTimeout).toBe(5678);
  });
});
