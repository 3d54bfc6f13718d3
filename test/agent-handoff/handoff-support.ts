import type { BrowserContext, Locator, Page } from 'playwright-core';
import { type RawData, WebSocket } from 'ws';

import { eventually, type Json } from '../agent/agent-support';
import type { LiveServer } from '../support/live-server';
import { socketUpgradeStatus } from '../support/socket-upgrade';

/**
 * What the tests of runs that wait for their user share: reading a request until it reaches a status, opening the
 * widget at userAction.url as the person would, and acting on the run's page only through the widget's canvas.
 */
export async function requestWhen(
  live: LiveServer,
  org: { headers: Record<string, string> },
  requestId: string,
  statuses: readonly string[],
  timeoutMs = 60_000,
): Promise<Json> {
  return eventually(
    async () => {
      const res = await fetch(`${live.baseUrl}/api/agent-requests/${requestId}?waitMs=1000`, { headers: org.headers });
      return (await res.json()) as Json;
    },
    (r: Json) => statuses.includes(r.status),
    timeoutMs,
  );
}

export const FINAL_STATUSES = ['COMPLETED', 'FAILED', 'CANCELED', 'TIMED_OUT'] as const;

/** Opens userAction.url (an SMS link, say) and waits until the run's page is painted on the widget's canvas. */
export async function openRunWidget(context: BrowserContext, url: string): Promise<Page> {
  const widget = await context.newPage();
  await widget.goto(url);
  await widget.locator('#al-live-canvas').waitFor({ state: 'visible' });
  // A page mid-navigation (a held form post) shows the run's last picture of it first.
  await widget.waitForFunction(() => ((window as unknown as { __agentlinkLive?: { frames: number } }).__agentlinkLive?.frames ?? 0) >= 1);
  return widget;
}

/** Clicks what `target` finds on the run's page, through the widget's (scaled) canvas: where a person would tap. */
export async function clickThroughWidget(
  live: LiveServer,
  widget: Page,
  requestId: string,
  target: (page: Page) => Locator,
): Promise<void> {
  const page = runPage(live, requestId);
  const box = (await target(page).boundingBox())!;
  const viewport = page.viewportSize()!;
  const canvas = (await widget.locator('#al-live-canvas').boundingBox())!;
  await widget.mouse.click(
    canvas.x + ((box.x + box.width / 2) * canvas.width) / viewport.width,
    canvas.y + ((box.y + box.height / 2) * canvas.height) / viewport.height,
  );
}

export interface WidgetCall {
  status: number;
  body: Json;
}

export interface WidgetClient {
  /** The link session `start()` opened. */
  id: string;
  start(): Promise<WidgetCall>;
  step(name: string, body?: unknown, sessionId?: string): Promise<WidgetCall>;
  answer(decision: unknown, sessionId?: string): Promise<WidgetCall>;
  exit(sessionId?: string): Promise<WidgetCall>;
}

/** The widget's calls for one link token (Authorization: Bearer, never in a URL); `id` is the link session it opened. */
export function widgetFor(live: LiveServer, linkToken: string): WidgetClient {
  const call = async (path: string, body: unknown = {}): Promise<WidgetCall> => {
    const res = await fetch(`${live.baseUrl}/link/api${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${linkToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  const w: WidgetClient = {
    id: '',
    async start(): Promise<WidgetCall> {
      const res = await call('/sessions', { env: 'sandbox' });
      if (res.status === 200) w.id = res.body.linkSessionId;
      return res;
    },
    /** A step of the link session `sessionId` (this widget's own by default). */
    step: (name: string, body: unknown = {}, sessionId = w.id) => call(`/sessions/${sessionId}/${name}`, body),
    answer: (decision: unknown, sessionId = w.id) => call(`/sessions/${sessionId}/user-action`, { decision }),
    exit: (sessionId = w.id) => call(`/sessions/${sessionId}/exit`, {}),
  };
  return w;
}

/** The run's own page (the one the person sees), from this process's registry of paused runs. */
export function runPage(live: LiveServer, requestId: string): Page {
  const page = live.services.handoffs.registry.find(requestId)?.page();
  if (!page) throw new Error(`no page for ${requestId}`);
  return page;
}

/** A raw client of the live view's socket of one link session. */
export class LiveClient {
  readonly messages: Json[] = [];
  frames = 0;
  closed: Promise<{ code: number; reason: string }>;
  private readonly ws: WebSocket;
  private readonly opened: Promise<void>;

  constructor(live: LiveServer, linkSessionId: string, origin = live.baseUrl) {
    this.ws = new WebSocket(`ws://127.0.0.1:${live.port}/link/api/sessions/${linkSessionId}/live`, {
      headers: { origin, host: `localhost:${live.port}` },
    });
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
    this.closed = new Promise((resolve) => this.ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    this.ws.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary) this.frames += 1;
      else this.messages.push(JSON.parse(data.toString()));
    });
    this.ws.on('error', () => undefined);
  }

  async hello(linkToken: string, viewport = { width: 480, height: 900 }): Promise<void> {
    await this.opened;
    this.send({ t: 'hello', linkToken, ...viewport });
  }

  send(message: Record<string, unknown>): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  /**
   * Clicks the middle of `selector` on `page` (the run's page: coordinates are its CSS pixels), then types `text` as
   * key presses, as inserted text, or both (what the widget sends for keys, and for IME or pasted text).
   */
  async typeInto(page: Page, selector: string, text: string, how: 'keys' | 'text' | 'both' = 'keys'): Promise<void> {
    const box = await page.locator(selector).boundingBox();
    if (!box) throw new Error(`${selector} is not on the page`);
    const at = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    this.send({ t: 'down', ...at, button: 'left', clickCount: 1 });
    this.send({ t: 'up', ...at, button: 'left', clickCount: 1 });
    if (how !== 'text') {
      for (const key of text) {
        this.send({ t: 'keydown', key });
        this.send({ t: 'keyup', key });
      }
    }
    if (how !== 'keys') this.send({ t: 'text', text });
  }

  async until(check: (m: Json) => boolean, timeoutMs = 20_000): Promise<Json> {
    return eventually(
      async () => this.messages.find(check),
      (m) => m !== undefined,
      timeoutMs,
    );
  }

  /** The last run-state message (waiting / working), if any. */
  get runState(): string | undefined {
    return [...this.messages].reverse().find((m) => m.type === 'run')?.state;
  }

  close(): void {
    this.ws.terminate();
  }
}

/** A raw upgrade request to the live socket with the given Origin: resolves with the status (101 = opened). */
export function upgradeStatus(
  live: LiveServer,
  linkSessionId: string,
  origin: string | undefined,
  host = `localhost:${live.port}`,
): Promise<number> {
  return socketUpgradeStatus(live.port, `/link/api/sessions/${linkSessionId}/live`, { host, origin });
}

/** A JPEG's pixel size, from its start-of-frame header. */
export function jpegSize(jpeg: Buffer): { width: number; height: number } {
  for (let i = 2; i + 9 < jpeg.length;) {
    if (jpeg[i] !== 0xff) throw new Error('not a JPEG marker');
    const marker = jpeg[i + 1]!;
    if (marker >= 0xc0 && marker <= 0xc3) return { height: jpeg.readUInt16BE(i + 5), width: jpeg.readUInt16BE(i + 7) };
    i += 2 + jpeg.readUInt16BE(i + 2);
  }
  throw new Error('no JPEG frame header');
}
