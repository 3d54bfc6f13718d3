import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import { NO_PERSON } from '../../server/agent/handoff/user-ask';
import { type PageSnapshot, Redactor, renderSnapshot, takeSnapshot } from '../../server/agent/observation';
import { parameterSlots } from '../../server/agent/planner/placeholders';
import { RunIntegrity } from '../../server/agent/run/integrity';
import type { ToolContext } from '../../server/agent/tools';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { startBrowser } from '../support/live-server';

/**
 * Small pages served on loopback for the observation tests, in real Chromium. The provider's site is
 * http://127.0.0.1:<home>/ and http://localhost:<home>/ (two origins the egress policy allows: same port, other
 * host); http://127.0.0.1:<other>/ is a third origin the run may not visit (its port is not the provider's).
 * A page's HTML may say HOME and OTHER for the two ports.
 */
export interface Rig {
  home: number;
  other: number;
  browser: Browser;
  egress: EgressPolicy;
  /** Serves `html` at `path` on both servers. */
  serve(path: string, html: string): void;
}

export async function startRig(): Promise<Rig> {
  const pages = new Map<string, string>();
  const ports = { home: 0, other: 0 };
  const handler: http.RequestListener = (req, res) => {
    const html = pages.get((req.url ?? '/').split('?')[0]!);
    if (html === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html.replace(/\bHOME\b/g, String(ports.home)).replace(/\bOTHER\b/g, String(ports.other)));
  };
  const servers = [http.createServer(handler), http.createServer(handler)];
  for (const s of servers) await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  ports.home = (servers[0]!.address() as AddressInfo).port;
  ports.other = (servers[1]!.address() as AddressInfo).port;
  const browser = await startBrowser();
  const egress = EgressPolicy.forProvider(
    { name: 'Fixture', homeUrl: `http://127.0.0.1:${ports.home}/`, allowedOrigins: ['127.0.0.1', 'localhost'] },
    'sandbox',
  );
  const rig: Rig & { close(): Promise<void> } = {
    ...ports,
    browser,
    egress,
    serve: (path, html) => void pages.set(path, html),
    close: async () => {
      await browser.close();
      for (const s of servers) {
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
    },
  };
  return rig;
}

export async function stopRig(rig: Rig | undefined): Promise<void> {
  await (rig as (Rig & { close(): Promise<void> }) | undefined)?.close();
}

export async function openPage(rig: Rig, path: string, browser: Browser = rig.browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(5_000);
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${rig.home}${path}`);
  await page.waitForLoadState('load');
  return { context, page };
}

export async function observe(rig: Rig, page: Page, opts: { maxTextChars?: number } = {}): Promise<{ s: PageSnapshot; text: string }> {
  const s = await takeSnapshot(page, { egress: rig.egress, ...opts });
  return { s, text: renderSnapshot(s) };
}

/** The one element with this role and name (fails listing what there is otherwise). */
export function el(s: PageSnapshot, role: string, name: string) {
  const hits = s.elements.filter((e) => e.role === role && e.name === name);
  if (hits.length !== 1)
    throw new Error(`${hits.length} × ${role} '${name}' in ${JSON.stringify(s.elements.map((e) => `${e.role} ${e.name}`))}`);
  return hits[0]!;
}

export function toolContext(rig: Rig, page: Page, snapshot: PageSnapshot): ToolContext {
  return {
    page,
    snapshot,
    slots: parameterSlots({}),
    redactor: new Redactor(),
    egress: rig.egress,
    run: { signal: new AbortController().signal, deadline: Date.now() + 20_000, provider: { name: 'Fixture' }, ...NO_PERSON },
    integrity: new RunIntegrity(),
    secrets: [],
  };
}
