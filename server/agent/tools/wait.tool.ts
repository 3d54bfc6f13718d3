import { z } from 'zod';

import { remaining } from '../result/errors';
import { pageTool, REPLAY_AS_RECORDED } from './page-tool';

export const waitTool = pageTool({
  name: 'wait',
  description: 'Wait for the page to update (content that loads after a moment).',
  params: z.object({ seconds: z.number().min(0.1).max(10).default(1) }).strict(),
  writes: false,
  acts: false,
  describe: (step) => `wait ${String(step.args.seconds ?? 1)} s`,
  replay: REPLAY_AS_RECORDED,
  async execute(args, tc) {
    const seconds = Number(args.seconds ?? 1);
    await tc.page.waitForTimeout(remaining(tc.run, seconds * 1000));
    return { message: `waited ${seconds} s`, record: { seconds } };
  },
});
