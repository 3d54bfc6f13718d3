import { z } from 'zod';

import { extractText } from '../observation';
import { ToolError } from '../result/errors';
import { elementIndex, MAX_TEXT, pageTool, target } from './page-tool';

export const extractTool = pageTool({
  name: 'extract',
  description:
    'Read the full visible text of one element (by index) or, without index, of the main part of the page. Use it when the observation shortened the text you need.',
  params: z.object({ index: elementIndex.optional() }).strict(),
  async execute(args, tc) {
    if (args.index !== undefined) await target(tc, Number(args.index));
    const res = await extractText(tc.page, args.index === undefined ? undefined : Number(args.index), tc.redactor, MAX_TEXT);
    if (!res.ok) throw new ToolError(res.error);
    return res.text ? { message: 'The visible text:', quoted: res.text } : { message: '(no visible text)' };
  },
});
