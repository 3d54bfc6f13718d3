import request from 'supertest';

import { describeEachStore, type TestApp } from '../support/app';

/** The simulated sites answer bad request bodies as client errors (4xx pages), never as 500. */
describeEachStore('sandbox site body errors', (t: TestApp) => {
  const HOST = 'orbit.sandbox.localhost';

  it('answers a urlencoded form with over 1000 fields with 413', async () => {
    const body = Array.from({ length: 1100 }, (_, i) => `f${i}=x`).join('&');
    const res = await request(t.app).post('/login').set('Host', HOST).type('form').send(body);
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });

  it('answers malformed JSON with 400', async () => {
    const res = await request(t.app).post('/login').set('Host', HOST).set('Content-Type', 'application/json').send('{"username":');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });

  it('answers an unsupported charset with 415', async () => {
    const res = await request(t.app).post('/login').set('Host', HOST).set('Content-Type', 'application/json; charset=latin-9').send('{}');
    expect(res.status).toBe(415);
  });
});
