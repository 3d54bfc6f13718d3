import type { ElementHandle, Locator } from 'playwright-core';

import { PAGE_ENTRIES } from '../../page-code/entries';
import { pageFunctions } from '../../page-code/page-function';
import { describeElement, evaluateOnElement, locateFromElement, type ObservedElement } from '../observation';
import { remaining, ToolError } from '../result/errors';
import { runNow } from '../run/clock';
import type checkableInPage from './checkable.page';
import type { Checked, Probe } from './checkable.page';
import { act, type ToolContext } from './page-tool';

/**
 * Clicking checkboxes, radios and switches the way design systems build them: the real <input> is hidden
 * (opacity 0, zero size, clipped, display:none) and a styled label or box is what a person clicks. A plain click
 * on such an input times out on "not visible" or on the label that "intercepts pointer events". So the click
 * tool, for an element that is (or labels, or wraps) one checkable control, does what a person does:
 *   1. the element itself, when a click at its centre reaches it;
 *   2. else the control's visible <label>, at a point of the label that is not a link inside it;
 *   3. else focus the control and press Space (only when focus really landed on it).
 * After each attempt the checked state is read again; the first attempt that changed it as a click should (a
 * checkbox or switch flips, a radio becomes checked) wins. When none did, the model is told the state did not
 * change, never that the click worked.
 */
/** The helpers in the page (checkable.page.ts), each on the element. */
const {
  probe: PROBE,
  state: STATE,
  label: LABEL,
  labelElement: LABEL_ELEMENT,
  labelPoint: LABEL_POINT,
  focus: FOCUS,
  control: CONTROL_HANDLE,
} = pageFunctions<typeof checkableInPage>(PAGE_ENTRIES.checkable);

const stateWord = (c: Checked) => (c === 'mixed' ? 'mixed' : c ? 'checked' : 'unchecked');

const CHECKABLE_ROLES = new Set(['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio']);

/** Whether an observed element may stand for a checkable control (only those cost the probe's round trip). */
export function mayBeCheckable(el: ObservedElement): boolean {
  return CHECKABLE_ROLES.has(el.role) || el.tag === 'label' || el.states.checked !== undefined;
}

/** Whether the element is, labels or wraps one checkable control (then the click goes through clickCheckable). */
export async function probeCheckable(loc: Locator, tc: ToolContext): Promise<Probe | null> {
  const probe = await evaluateOnElement(loc, PROBE, undefined, { timeout: Math.min(2_000, remaining(tc.run, 2_000)) }).catch(() => null);
  // A control that states no checked state cannot be verified: it gets the plain click.
  return probe && probe.checked !== null ? probe : null;
}

const POLL_MS = 50;
const SETTLE_MS = 800;

export async function clickCheckable(tc: ToolContext, el: ObservedElement, loc: Locator, probe: Probe): Promise<string> {
  const what = describeElement(el);
  const before = probe.checked;
  const radio = probe.kind === 'radio';
  if (radio && before === true) return `${what} is already checked`;
  const wanted = (now: Checked) => (radio ? now === true : before === null ? true : now !== before);
  const GONE = 'gone' as const;
  const state = (): Promise<Checked | typeof GONE> => evaluateOnElement(loc, STATE, undefined, { timeout: 1_000 }).catch(() => GONE);
  /** Waits briefly for the state a click should give (widgets may update on the next frame or after an animation). */
  const outcome = async (how: string): Promise<string | null> => {
    const until = Date.now() + Math.min(SETTLE_MS, remaining(tc.run, SETTLE_MS));
    for (;;) {
      const now = await state();
      // Re-rendered away: another attempt could undo what this one did, so stop and let the model look.
      if (now === GONE) return `${how}; the page then replaced it, so its new state is in the next observation`;
      if (now !== null && wanted(now)) return `${how} (now ${stateWord(now)})`;
      if (Date.now() >= until) return null;
      await tc.page.waitForTimeout(POLL_MS).catch(() => undefined);
    }
  };
  const short = () => Math.min(3_000, remaining(tc.run, 3_000));
  const tried: string[] = [];
  /** One attempt: a failed click (intercepted, timed out) is noted and the next way is tried. */
  const attempt = async (name: string, how: string, click: () => Promise<unknown>): Promise<string | null> => {
    try {
      await act(name, click);
    } catch (err) {
      if (tc.run.signal.aborted || runNow() >= tc.run.deadline) throw err;
      tried.push(`${name} (${(err as Error).message.replace(/^.*? failed: /, '')})`);
      return null;
    }
    tried.push(name);
    return outcome(how);
  };

  if (probe.hits) {
    const done = await attempt('a click on it', `clicked ${what}`, () => loc.click({ timeout: short() }));
    if (done) return done;
  }
  // The label and the control are found in Playwright's utility world from the observation's reference, and clicked or
  // pressed through locators of their own: the page's scripts see no call of ours (element-calls.ts).
  const label = await locateFromElement(loc, LABEL_ELEMENT).catch(() => null);
  if (label !== undefined) {
    const point = label ? await evaluateOnElement(loc, LABEL_POINT).catch(() => null) : null;
    if (label && point) {
      const done = await attempt('a click on its label', `clicked ${what} by its label`, () =>
        label.click({ position: point, timeout: short() }),
      );
      if (done) return done;
    }
    if (await evaluateOnElement(loc, FOCUS).catch(() => false)) {
      const control = await locateFromElement(loc, CONTROL_HANDLE).catch(() => null);
      if (control) {
        const done = await attempt('Space on the focused control', `toggled ${what} with the Space key`, () =>
          control.press('Space', { timeout: short() }),
        );
        if (done) return done;
      }
    }
    return unchanged();
  }
  const handle = await loc.elementHandle({ timeout: 1_000 }).catch(() => null);
  if (!handle) throw new ToolError(`${what} is no longer on the page; the page changed, look at the new observation`);
  try {
    const found = await handle.evaluateHandle(LABEL);
    const label = (await found.getProperty('label').catch(() => null))?.asElement() as ElementHandle<Element> | null | undefined;
    if (label) {
      const x = Number(await (await found.getProperty('x')).jsonValue());
      const y = Number(await (await found.getProperty('y')).jsonValue());
      const done = await attempt('a click on its label', `clicked ${what} by its label`, () =>
        label.click({ position: { x, y }, timeout: short() }),
      );
      if (done) return done;
    }
    if (await handle.evaluate(FOCUS).catch(() => false)) {
      const control = (await handle.evaluateHandle(CONTROL_HANDLE)).asElement();
      if (control) {
        const done = await attempt('Space on the focused control', `toggled ${what} with the Space key`, () =>
          control.press('Space', { timeout: short() }),
        );
        if (done) return done;
      }
    }
  } finally {
    await handle.dispose().catch(() => undefined);
  }
  return unchanged();

  /** No attempt changed the state: the model is told so, never that the click worked. */
  async function unchanged(): Promise<never> {
    if (!tried.length) {
      throw new ToolError(`${what} cannot be clicked: its control is hidden, has no visible label to click and cannot take focus`);
    }
    const now = await state();
    const still = now === GONE || now === null ? before : now;
    throw new ToolError(`${what} did not change: it is still ${stateWord(still)} (tried ${tried.join(', then ')})`);
  }
}
