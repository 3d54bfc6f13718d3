import type { Browser, Page } from 'playwright-core';
import { z } from 'zod';

import type { Playbook } from '../../server/agent/playbooks';
import { hashToken } from '../../server/domain/tokens';
import { api, connectOrbit, createRequest, liveOrg } from '../../test/agent/agent-support';
import { FINAL_STATUSES, requestWhen } from '../../test/agent-handoff/handoff-support';
import { startLiveServer } from '../../test/support/live-server';
import { type Person, sideBySide, timeKeys, widgetPage, zoomTo } from './widget-person';

/**
 * bench:live --paused: the live view of a paused run (a code step: the person types a code on the run's own page,
 * its device's 1280-wide desktop), zoomed in to one page pixel per screen pixel on the field, frames of the whole page
 * (as before issue #38's regions reached paused-run views) against frames of the part in view, side by side.
 */
const codeStep: Playbook<unknown> = {
  providerSlug: 'orbit',
  name: 'bench.code-step',
  description: 'bench: a code the person types on the run’s page',
  writes: false,
  examples: ['bench: a code step'],
  resultFields: { ok: 'boolean' },
  parameters: z.unknown(),
  run: async (ctx) => {
    // A transparent caret: a frame after a key is the key's frame, not a caret blink (as the sign-in bench does).
    await ctx.page.setContent(
      '<main style="padding:40px;font:18px sans-serif"><h1>Verify it is you</h1>' +
        '<label>Code <input id="code" autocomplete="off" style="caret-color:transparent;font-size:20px"></label></main>',
    );
    await ctx.needsUser({ reason: 'CODE', message: 'Enter the code.' });
    return { ok: true };
  },
};

export async function comparePausedZoom(widgets: Browser, measure: { keys: number; warmup: number; intervalMs: number }): Promise<void> {
  const live = await startLiveServer({
    worker: true,
    env: { AGENTLINK_USER_ACTION_TTL_SECONDS: '600', AGENTLINK_LIVE_IDLE_SECONDS: '600' },
  });
  live.services.playbooks.register(codeStep);
  const requests: string[] = [];
  const org = await liveOrg(live, 'Bench');
  try {
    const conn = await connectOrbit(live, org);
    /** One paused run, and its person in a widget opened at the run's link (as from an SMS), typing on its page. */
    const open = async (frames: 'sized' | 'whole'): Promise<{ person: Person; page: Page }> => {
      const id = await createRequest(live, org, {
        accessToken: conn.accessToken,
        action: 'bench: a code step',
        playbook: codeStep.name,
        startingUrl: live.siteUrl('orbit', '/'),
        responseFormat: { ok: 'boolean' },
      });
      requests.push(id);
      const waiting = await requestWhen(live, org, id, ['NEEDS_USER']);
      const widget = await widgetPage(widgets, frames);
      await widget.goto(waiting.userAction.url);
      await widget.locator('#al-live-canvas').waitFor({ state: 'visible', timeout: 30_000 });
      await widget.waitForFunction(
        () => ((window as unknown as { __agentlinkLive?: { frames: number } }).__agentlinkLive?.frames ?? 0) >= 1,
      );
      const token = await live.services.store.repos.linkTokens.findByHash(hashToken(waiting.userAction.linkToken));
      const sessions = await live.services.store.repos.linkSessions.listForLinkToken(token!.id);
      const person: Person = { widget, linkSessionId: sessions[sessions.length - 1]!.id };
      const page = live.services.runLiveViews.inspect(person.linkSessionId)!;
      // The field has the page's focus (the sign-in bench clicks it through the stream; here the keys are what is timed).
      await page.focus('#code');
      await timeKeys(widget);
      return { person, page };
    };
    const whole = await open('whole');
    const part = await open('sized');
    for (const side of [whole, part]) await zoomTo(side.person, side.page, '#code');
    await sideBySide(
      "Paused run's live view zoomed in to one page pixel per screen pixel, one session, side by side",
      [
        { name: 'whole page (before)', person: whole.person },
        { name: 'part in view (after)', person: part.person },
      ],
      measure,
    );
  } finally {
    for (const id of requests) {
      await api(live, org, 'POST', `/api/agent-requests/${id}/cancel`).catch(() => undefined);
      await requestWhen(live, org, id, FINAL_STATUSES).catch(() => undefined);
    }
    await live.services.runLiveViews.closeAll();
    await live.close();
  }
}
