import fs from 'node:fs';
import path from 'node:path';

import request from 'supertest';

import { WIDGET_STYLESHEETS } from '../../server/connect/widget.routes';
import { createTestApp, type TestApp } from '../support/app';

/**
 * The widget's stylesheet is kept as one file per topic (widget/styles/) and served as the one /link/widget.css the
 * page links: the files joined in their listed order (the cascade of a single file), under the widget's CSP and
 * no-store caching, every file listed and none over the repository's 500 lines.
 */
jest.setTimeout(60_000);

const STYLES = path.join(__dirname, '..', '..', 'server', 'connect', 'widget', 'styles');

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp('sqlite');
});
afterAll(() => t?.close());

describe('/link/widget.css', () => {
  it('serves the topic files joined in their order, with the widget CSP and no-store', async () => {
    const res = await request(t.app).get('/link/widget.css');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-security-policy']).toContain("style-src 'self'");
    const files = WIDGET_STYLESHEETS.map((f) => fs.readFileSync(path.join(STYLES, f), 'utf8'));
    expect(res.text).toBe(files.join('\n'));
    // the custom properties come first, the live view's rules (which override the screens') last
    expect(res.text.indexOf(':root {')).toBeLessThan(res.text.indexOf('.al-screen {'));
    expect(res.text.indexOf('.al-form {')).toBeLessThan(res.text.indexOf('.al-live-head {'));
    const page = await request(t.app).get('/link');
    expect(page.text.match(/<link rel="stylesheet"[^>]*>/g)).toEqual(['<link rel="stylesheet" href="/link/widget.css" />']);
  });

  it('lists every file of widget/styles/, each under 500 lines', () => {
    expect([...fs.readdirSync(STYLES)].sort()).toEqual([...WIDGET_STYLESHEETS].sort());
    for (const f of WIDGET_STYLESHEETS)
      expect({ f, lines: fs.readFileSync(path.join(STYLES, f), 'utf8').split('\n').length <= 500 }).toEqual({ f, lines: true });
  });
});
