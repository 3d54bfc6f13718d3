import { z } from 'zod';

import { quote } from '../observation';
import { remaining } from '../result/errors';
import { type TabPattern, watchTabs } from '../tabs/run-tabs';
import { pageTool, type ToolReplay } from './page-tool';

export const tabNumber = z.number().int().min(1).max(1000).describe('The number of the tab in the "Tabs:" line of the observation.');

/**
 * The replay of a tab step (switch_tab, close_tab): the tab is recorded by its URL and title (taken before the step,
 * relative to the tab the run was on), since its number differs between runs; the number it has in this run is
 * looked up when the step is replayed, waiting for the tab to open.
 */
export const REPLAY_TAB: ToolReplay = {
  target: 'none',
  async args(recorded, tc, { waitMs }) {
    const pattern = recorded as unknown as TabPattern;
    return { tab: await watchTabs(tc.page, tc.egress).waitFor(pattern, (s) => tc.redactor.text(s), waitMs) };
  },
};

export const switchTabTool = pageTool({
  name: 'switch_tab',
  description:
    'Make another open tab the current one (a link or button may have opened a page in a new tab: it is listed in the "Tabs:" line of the observation). The next observation shows that tab.',
  params: z.object({ tab: tabNumber }).strict(),
  writes: false,
  describe: (step) => `switch to the tab showing ${String(step.args.url)} ${quote(String(step.args.title ?? ''))}`,
  replay: REPLAY_TAB,
  async execute(args, tc) {
    const tabs = watchTabs(tc.page, tc.egress);
    const id = Number(args.tab);
    // Recorded by URL and title (taken before the switch, relative to the tab the run is on): a replay finds the tab again by them.
    const pattern = await tabs.patternOf(id, (s) => tc.redactor.text(s));
    if (id === tabs.currentId) return { message: `tab [${id}] is already the current tab`, record: { ...pattern } };
    const page = await tabs.switchTo(id);
    await page.waitForLoadState('domcontentloaded', { timeout: remaining(tc.run, 10_000) }).catch(() => undefined);
    return { message: `switched to tab [${id}]; the next observation shows its page`, record: { ...pattern } };
  },
});
