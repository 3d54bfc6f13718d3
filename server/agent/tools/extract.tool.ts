import { z } from 'zod';

import { extractText } from '../observation';
import { ToolError } from '../result/errors';
import { elementIndex, MAX_TEXT, on, pageTool, target } from './page-tool';

export const extractTool = pageTool({
  name: 'extract',
  description:
    'Read the full visible text of one element or section (by index) or, without index, of the whole page, one page of text at a time. Use it when the observation says text was left out or shortened the text you need.',
  params: z
    .object({
      index: elementIndex.optional(),
      page: z.number().int().min(1).max(500).optional().describe('Which page of a long text to read (1, the default, is the first).'),
    })
    .strict(),
  writes: false,
  acts: false,
  describe: (step) => `extract${on(step)}`,
  // What it read becomes the trajectory's result plan (replay/extraction.ts), never a step.
  replay: null,
  async execute(args, tc) {
    const at = args.index === undefined ? undefined : (await target(tc, Number(args.index))).el;
    const res = await extractText(tc.page, at, tc.redactor, MAX_TEXT, args.page === undefined ? 1 : Number(args.page));
    if (!res.ok) throw new ToolError(tc.redactor.text(res.error));
    if (!res.text) return { message: '(no visible text)' };
    const more = res.page < res.pages ? ` (extract with page ${res.page + 1} reads on)` : '';
    const which = res.pages > 1 ? `, page ${res.page} of ${res.pages}${more}` : '';
    return { message: `The visible text${which}:`, quoted: res.text };
  },
});
