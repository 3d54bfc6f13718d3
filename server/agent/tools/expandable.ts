import type { Locator } from 'playwright-core';

import { PAGE_ENTRIES } from '../../page-code/entries';
import { pageFunctions } from '../../page-code/page-function';
import { describeElement, evaluateOnElement, type ObservedElement } from '../observation';
import { remaining } from '../result/errors';
import { runNow } from '../run/clock';
import type expandableInPage from './expandable.page';
import type { ItemState } from './expandable.page';
import { act, type ToolContext } from './page-tool';

/**
 * Tree items and treegrid rows that a click on their label does not open or close. The ARIA Authoring Practices'
 * trees and treegrids toggle an item on its expander (often a CSS ::before triangle, which no selector reaches: the
 * page tells the click by its position) or with the arrow keys, and a click on the label only focuses or selects
 * it. So after a click on a tree item or row that states expanded/collapsed, the click tool checks that state:
 * when the click changed nothing at all (not the state, not the selection, not the URL), it does what a person does
 *   1. focus the item and press ArrowRight (to open) or ArrowLeft (to close): the keys the pattern defines for
 *      exactly this, which name the direction (never a toggle that a late reaction to the click could undo);
 *   2. else click the expander: a small icon left of the label, or the point just left of the label's first letter;
 * and says in the result which of them worked. A click that selected the item is left as it is (a person's first
 * click on a folder may just select it): the result says the item stays closed, and a second click toggles it.
 * Enter is not tried: in these patterns it activates the item (opens the message, follows the link).
 * Why in the tool, not an expander element in the observation: a ::before triangle is no element, and one line per item keeps it short.
 */
const { state: STATE, expander: EXPANDER, focus: FOCUS } = pageFunctions<typeof expandableInPage>(PAGE_ENTRIES.expandable);

const ITEM_ROLES = new Set(['treeitem', 'row']);
const POLL_MS = 50;
const SETTLE_MS = 800;

/** Whether the element is a tree item or treegrid row that opens and closes (only those cost the check). */
export function mayExpand(el: ObservedElement): boolean {
  return ITEM_ROLES.has(el.role) && el.states.expanded !== undefined;
}

const word = (open: boolean) => (open ? 'expanded' : 'collapsed');

/** The item's state now, or null when it is gone (or the page does not answer). */
export async function itemState(loc: Locator, tc: ToolContext): Promise<ItemState | null> {
  return evaluateOnElement(loc, STATE, undefined, { timeout: Math.min(1_000, remaining(tc.run, 1_000)) }).catch(() => null);
}

/**
 * After a click on an expandable item: the result's message. `before` is the state read before the click. The
 * state may change a frame or an animation later, so it is polled briefly before anything else is tried.
 */
export async function afterItemClick(tc: ToolContext, el: ObservedElement, loc: Locator, before: ItemState): Promise<string> {
  const what = describeElement(el);
  if (before.expanded === null) return `clicked ${what}`;
  const want = !before.expanded;
  const changed = async (): Promise<ItemState | null | 'gone'> => {
    const until = Date.now() + Math.min(SETTLE_MS, remaining(tc.run, SETTLE_MS));
    for (;;) {
      const now = await itemState(loc, tc);
      if (!now) return 'gone';
      if (now.expanded !== before.expanded || now.mark !== before.mark) return now;
      if (Date.now() >= until) return null;
      await tc.page.waitForTimeout(POLL_MS).catch(() => undefined);
    }
  };
  const first = await changed();
  if (first === 'gone') return `clicked ${what}; the page then replaced it, so its state is in the next observation`;
  if (first) {
    if (first.expanded === want) return `clicked ${what} (now ${word(want)})`;
    return `clicked ${what}: it changed (selected or current) but is still ${word(before.expanded)}; click it again to ${want ? 'expand' : 'collapse'} it`;
  }

  const tried: string[] = [];
  const short = () => Math.min(3_000, remaining(tc.run, 3_000));
  /** One way; true when the item is then in the wanted state. A way that throws is noted, and the next is tried. */
  const attempt = async (name: string, run: () => Promise<unknown>): Promise<boolean> => {
    try {
      await act(name, run);
    } catch (err) {
      if (tc.run.signal.aborted || runNow() >= tc.run.deadline) throw err;
      tried.push(`${name} (${(err as Error).message.replace(/^.*? failed: /, '')})`);
      return false;
    }
    tried.push(name);
    const now = await changed();
    return !!now && now !== 'gone' && now.expanded === want;
  };
  const key = want ? 'ArrowRight' : 'ArrowLeft';
  if (await evaluateOnElement(loc, FOCUS, undefined, { timeout: short() }).catch(() => false)) {
    if (await attempt(`${key} on the focused item`, () => tc.page.keyboard.press(key))) {
      return `clicked ${what}; the click did not ${want ? 'expand' : 'collapse'} it, so it was ${word(want)} with ${key} (now ${word(want)})`;
    }
  }
  // A reaction that came late must not be undone: the expander toggles, so it is clicked only while the state is unchanged.
  const now = await itemState(loc, tc);
  if (now && now.expanded === before.expanded) {
    const point = await evaluateOnElement(loc, EXPANDER, undefined, { timeout: short() }).catch(() => null);
    if (point && (await attempt('a click on its expander', () => tc.page.mouse.click(point.x, point.y)))) {
      return `clicked ${what}; the click on its label did not ${want ? 'expand' : 'collapse'} it, so its expander (left of the label) was clicked (now ${word(want)})`;
    }
  } else if (now && now.expanded === want) return `clicked ${what} (now ${word(want)})`;
  const how = tried.length ? ` (then tried ${tried.join(', then ')})` : '';
  return `clicked ${what}, but it is still ${word(before.expanded)}${how}`;
}
