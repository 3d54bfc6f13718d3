import type { Locator } from 'playwright-core';
import { z } from 'zod';

import { PAGE_ENTRIES } from '../../page-code/entries';
import { pageFunctions } from '../../page-code/page-function';
import { describeElement, evaluateOnElement, type ObservedElement, quote } from '../observation';
import { placeholderNames } from '../planner/placeholders';
import { ToolError } from '../result/errors';
import { dateFormatIn, EXAMPLE, formatDate, isTemporalType, sameInputValue, type TemporalType, toInputValue } from './dates';
import {
  act,
  elementIndex,
  fillField,
  on,
  pageTool,
  REPLAY_ON_ELEMENT,
  settle,
  target,
  templated,
  timeout,
  type ToolContext,
} from './page-tool';
import type typeInPage from './type.page';
import type { Field } from './type.page';

/** In the page (type.page.ts): the field's kind and hint text; what it holds after typing. */
const { field: FIELD, readBack: READ_BACK } = pageFunctions<typeof typeInPage>(PAGE_ENTRIES.typeField);

/** Longer text goes in at once even into a suggesting field: key by key costs a few ms a key. */
const SUGGEST_TYPED_MAX = 200;

/** The text to put into the field: a date or time the way this field takes it; null = the text as it is. */
function convert(field: Field, text: string, shown: string): { value: string; temporal?: TemporalType; reformatted?: string } {
  if (field.tag === 'input' && isTemporalType(field.type)) {
    const c = toInputValue(field.type, text);
    if (!c.ok) throw new ToolError(`${shown} cannot go into this ${field.type} field: ${c.reason}`);
    return { value: c.value, temporal: field.type };
  }
  const format = (field.tag === 'input' && field.type === 'text') || field.tag === 'textarea' ? dateFormatIn(field.hint) : null;
  const formatted = format ? formatDate(text, format) : null;
  return formatted !== null && formatted !== text ? { value: formatted, reformatted: format!.spelled } : { value: text };
}

/** Reads the field back: a date or time that did not take, or any text that left the field empty, is an error the model sees. */
async function verify(
  tc: ToolContext,
  el: ObservedElement,
  loc: Locator,
  field: Field,
  typed: { value: string; temporal?: TemporalType },
  shown: string,
) {
  if (field.tag !== 'input' && field.tag !== 'textarea') return; // a rich-text editor holds markup, not a value
  if (field.type === 'password' || field.type === 'file') return;
  if (!typed.temporal && dateFormatIn(field.hint)) await settle(tc, 100); // date pickers reformat or clear on their own tick
  const back = await evaluateOnElement(loc, READ_BACK, undefined, { timeout: 2_000 }).catch(() => null);
  if (!back) throw new ToolError(`${describeElement(el)} is no longer on the page after typing; look at the new observation`);
  const now = quote(tc.redactor.text(back.value));
  if (typed.temporal) {
    if (!sameInputValue(typed.temporal, back.value, typed.value)) {
      throw new ToolError(`${describeElement(el)} did not take ${shown}: it holds ${now} (it takes e.g. ${EXAMPLE[typed.temporal]})`);
    }
    if (!back.valid) throw new ToolError(`${describeElement(el)} holds ${shown} but rejects it: ${tc.redactor.text(back.message)}`);
    return;
  }
  if (typed.value !== '' && back.value === '')
    throw new ToolError(`${describeElement(el)} is still empty after typing ${shown}; it did not take the text`);
}

export const typeTool = pageTool({
  name: 'type',
  description:
    'Type text into a text field, search box, text area, rich-text editor, or a date/time field, replacing what it holds. Write dates and times as you would (07/18/2025, July 18 2025, 2:30 PM): they are converted to the format the field takes, and you get an error if the field did not take the value. Set submit to press Enter afterwards.',
  params: z
    .object({
      index: elementIndex,
      text: templated('The text to type.'),
      submit: z.boolean().optional().describe('Press Enter after typing.'),
    })
    .strict(),
  writes: true,
  describe: (step) => `type ${quote(String(step.args.text))} into${on(step)}${step.args.submit ? ' and press Enter' : ''}`,
  replay: REPLAY_ON_ELEMENT,
  async execute(args, tc) {
    const { el, loc } = await target(tc, Number(args.index));
    const template = String(args.text);
    const value = await fillField(template, tc, el, loc, 'text');
    // Messages name the template, never a filled-in parameter value (nor anything derived from it).
    const shown = quote(template);
    const field = await evaluateOnElement(loc, FIELD, undefined, { timeout: timeout(tc) }).catch(() => null);
    if (!field) throw new ToolError(`${describeElement(el)} is no longer on the page; the page changed, look at the new observation`);
    const typed = convert(field, value, shown);
    await act(`typing into ${describeElement(el)}`, async () => {
      if (!field.suggests || typed.temporal || typed.value.length > SUGGEST_TYPED_MAX)
        return loc.fill(typed.value, { timeout: timeout(tc) });
      // Key by key, so the field's script sees the keys and shows its suggestions (fill sends only `input`).
      await loc.fill('', { timeout: timeout(tc) });
      await loc.pressSequentially(typed.value, { timeout: timeout(tc) });
    });
    await verify(tc, el, loc, field, typed, shown);
    if (args.submit) {
      await act(`pressing Enter in ${describeElement(el)}`, () => loc.press('Enter', { timeout: timeout(tc) }));
      await settle(tc);
    }
    const literal = placeholderNames(template).length === 0;
    const as =
      typed.value !== value && literal ? ` (as ${quote(typed.value)}${typed.reformatted ? `, the field's ${typed.reformatted}` : ''})` : '';
    return {
      message: `typed ${shown} into ${describeElement(el)}${as}${args.submit ? ' and pressed Enter' : ''}`,
      target: el,
      record: { text: template, ...(args.submit ? { submit: true } : {}) },
    };
  },
});
