import { z } from 'zod';

import { describeElement, quote } from '../observation';
import { act, elementIndex, fillField, pageTool, settle, target, templated, timeout } from './page-tool';

export const typeTool = pageTool({
  name: 'type',
  description:
    'Type text into a text field, search box, text area or rich-text editor, replacing what it holds. Set submit to press Enter afterwards.',
  params: z
    .object({
      index: elementIndex,
      text: templated('The text to type.'),
      submit: z.boolean().optional().describe('Press Enter after typing.'),
    })
    .strict(),
  async execute(args, tc) {
    const { el, loc } = await target(tc, Number(args.index));
    const template = String(args.text);
    const value = await fillField(template, tc, el, loc, 'text');
    await act(`typing into ${describeElement(el)}`, async () => {
      await loc.fill(value, { timeout: timeout(tc) });
      if (args.submit) await loc.press('Enter', { timeout: timeout(tc) });
    });
    if (args.submit) await settle(tc);
    // The message names the template, never the filled-in value.
    return {
      message: `typed ${quote(template)} into ${describeElement(el)}${args.submit ? ' and pressed Enter' : ''}`,
      target: el,
      record: { text: template, ...(args.submit ? { submit: true } : {}) },
    };
  },
});
