import { z } from 'zod';

import { describeElement, evaluateOnElement, optionLocator, quote, runDomAt } from '../observation';
import { remaining, ToolError } from '../result/errors';
import { act, elementIndex, fillField, on, pageTool, REPLAY_ON_ELEMENT, settle, target, templated, timeout } from './page-tool';

export const selectTool = pageTool({
  name: 'select',
  description:
    'Choose an option in a drop-down: a native <select>, or a custom one (a button or combobox that opens a listbox). Give the option by its visible label.',
  params: z.object({ index: elementIndex, option: templated('The label (or value) of the option to choose.') }).strict(),
  writes: true,
  describe: (step) => `choose ${quote(String(step.args.option))} in${on(step)}`,
  replay: REPLAY_ON_ELEMENT,
  async execute(args, tc) {
    const { el, loc } = await target(tc, Number(args.index));
    const template = String(args.option);
    const option = await fillField(template, tc, el, loc, 'choice');
    let chosen: string;
    if (el.tag === 'select') {
      const options = await evaluateOnElement(loc, (s) =>
        Array.from((s as HTMLSelectElement).options).map((o) => ({ label: (o.label || o.text).trim(), value: o.value })),
      );
      const want = option.trim().toLowerCase();
      const tests = [
        (o: { label: string; value: string }) => o.label.toLowerCase() === want,
        (o: { label: string; value: string }) => o.value.toLowerCase() === want,
        (o: { label: string; value: string }) => o.label.toLowerCase().startsWith(want),
      ];
      let i = -1;
      for (const t of tests) {
        const hits = options.map((o, k) => (t(o) ? k : -1)).filter((k) => k >= 0);
        if (hits.length === 1) {
          i = hits[0]!;
          break;
        }
      }
      if (i < 0)
        throw new ToolError(
          `no single option of ${describeElement(el)} matches ${quote(tc.redactor.text(option))}; the options are ${options.map((o) => quote(tc.redactor.text(o.label))).join(', ')}`,
        );
      await act(`choosing in ${describeElement(el)}`, () => loc.selectOption({ index: i }, { timeout: timeout(tc) }));
      chosen = options[i]!.label;
    } else {
      if (el.role !== 'listbox' && el.states.expanded !== true) {
        await act(`opening ${describeElement(el)}`, () => loc.click({ timeout: timeout(tc) }));
      }
      let marked: { ok: true; name: string } | { ok: false; error: string } = { ok: false, error: 'no open list of options' };
      for (let attempt = 0; attempt < 15; attempt++) {
        marked = (await runDomAt(tc.page, el, 'markOption', { index: Number(args.index), option })) ?? {
          ok: false,
          error: 'its frame is no longer on the page',
        };
        if (marked.ok || !/no open list/.test(marked.error)) break;
        await tc.page.waitForTimeout(Math.min(200, remaining(tc.run, 200)));
      }
      if (!marked.ok) throw new ToolError(`${describeElement(el)}: ${tc.redactor.text(marked.error)}`);
      const name = marked.name;
      await act(`choosing ${quote(name)}`, async () => (await optionLocator(tc.page, el)).click({ timeout: timeout(tc) }));
      chosen = name;
    }
    await settle(tc, 100);
    return { message: `chose ${quote(tc.redactor.text(chosen))} in ${describeElement(el)}`, target: el, record: { option: template } };
  },
});
