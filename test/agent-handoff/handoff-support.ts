import type { BrowserContext, Locator, Page } from 'playwright-core';

import { eventually, type Json } from '../agent/agent-support';
import type { LiveServer } from '../support/live-server';

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
  const page = live.services.handoffs.registry.find(requestId)!.page()!;
  const box = (await target(page).boundingBox())!;
  const viewport = page.viewportSize()!;
  const canvas = (await widget.locator('#al-live-canvas').boundingBox())!;
  await widget.mouse.click(
    canvas.x + ((box.x + box.width / 2) * canvas.width) / viewport.width,
    canvas.y + ((box.y + box.height / 2) * canvas.height) / viewport.height,
  );
}
