import { z } from 'zod';

import { quote } from '../observation';
import { watchTabs } from '../tabs/run-tabs';
import { pageTool } from './page-tool';
import { REPLAY_TAB, tabNumber } from './switch-tab.tool';

export const closeTabTool = pageTool({
  name: 'close_tab',
  description:
    'Close an open tab (by default the current one) when you are done with it. Closing the current tab moves you back to the tab that opened it.',
  params: z.object({ tab: tabNumber.optional() }).strict(),
  writes: false,
  describe: (step) => `close the tab showing ${String(step.args.url)} ${quote(String(step.args.title ?? ''))}`,
  replay: REPLAY_TAB,
  async execute(args, tc) {
    const tabs = watchTabs(tc.page, tc.egress);
    const id = args.tab === undefined ? tabs.currentId : Number(args.tab);
    const pattern = await tabs.patternOf(id, (s) => tc.redactor.text(s));
    const { now } = await tabs.close(id);
    return { message: `closed tab [${id}]; the current tab is [${now}]`, record: { ...pattern } };
  },
});
