import pino from 'pino';
import request from 'supertest';

import { createApp } from '../../server/app';
import { describeEachStore } from '../support/app';
import { createOrg, sandboxHeaders } from '../support/helpers';

interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  req?: { id: string; method: string; url: string };
  res?: { statusCode?: number };
  responseTime?: number;
  [key: string]: unknown;
}

/** The access log (server/http/request-log.ts): one line per response, secrets out of URLs, req.log bound to the request. */
describeEachStore('request log', (t) => {
  function appWithLog(level: string) {
    const lines: LogLine[] = [];
    const logger = pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
    return { app: createApp(t.services, logger), lines };
  }

  it('writes one line per response with request id, method, redacted URL, status and duration', async () => {
    const { app, lines } = appWithLog('info');
    const org = await createOrg(t, 'Logged Co');
    const ok = await request(app).get('/api/providers').set(sandboxHeaders(org));
    const unauthorized = await request(app).get('/api/providers?access_token=secret-value');
    await request(app).get('/healthz');
    await new Promise((resolve) => setImmediate(resolve));
    const access = lines.filter((l) => l.msg === 'request completed');
    expect(access.map((l) => [l.req, l.res])).toStrictEqual([
      [{ id: ok.headers['x-request-id'], method: 'GET', url: '/api/providers' }, { statusCode: 200 }],
      [{ id: unauthorized.headers['x-request-id'], method: 'GET', url: '/api/providers?access_token=[redacted]' }, { statusCode: 401 }],
    ]);
    for (const l of access) expect(l.responseTime).toBeGreaterThan(0);
    expect(JSON.stringify(lines)).not.toContain('secret-value');
    expect(JSON.stringify(lines)).not.toContain(org.sandboxSecret);
  });

  it('writes no access lines when the level is above info', async () => {
    const { app, lines } = appWithLog('error');
    const res = await request(app).get('/link?token=link-sandbox-nope');
    expect(res.status).toBeLessThan(500);
    expect(lines.filter((l) => l.req)).toStrictEqual([]);
  });

  it('binds req.log lines to the request id', async () => {
    const { app, lines } = appWithLog('info');
    // The widget logs its steps through req.log; starting a session with an unknown link token is such a step.
    const res = await request(app).post('/link/api/sessions').set('authorization', 'Bearer link-sandbox-nope').send({});
    expect(res.status).toBeGreaterThanOrEqual(400);
    const own = lines.filter((l) => l.reqId !== undefined);
    expect(own.map((l) => [l.msg, l.step])).toStrictEqual([['connect widget step failed', 'start']]);
    expect(own[0].reqId).toBe(res.headers['x-request-id']);
  });
});
