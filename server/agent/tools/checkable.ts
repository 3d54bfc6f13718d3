import type { ElementHandle, Locator } from 'playwright-core';

import { describeElement, type ObservedElement } from '../observation';
import { remaining, ToolError } from '../result/errors';
import { runNow } from '../run-clock';
import { inPage } from './in-page';
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
type Checked = boolean | 'mixed' | null;

interface Probe {
  kind: string;
  checked: Checked;
  /** A click at the element's centre reaches the element. */
  hits: boolean;
}

const CONTROL = String.raw`
function control(e) {
  var t = e.tagName, role = (e.getAttribute('role') || '').toLowerCase();
  if (t === 'INPUT' && (e.type === 'checkbox' || e.type === 'radio')) return e;
  if (/^(checkbox|radio|switch|menuitemcheckbox|menuitemradio)$/.test(role)) return e;
  if (t === 'LABEL' && e.control) {
    var c = e.control, cr = (c.getAttribute('role') || '').toLowerCase();
    if ((c.tagName === 'INPUT' && (c.type === 'checkbox' || c.type === 'radio')) || /^(checkbox|radio|switch)$/.test(cr)) return c;
  }
  // A wrapper of one control (a design system's checkbox component), not a card or form that holds other controls.
  if (t === 'A' || t === 'BUTTON' || t === 'FORM' || e.querySelector('a[href],button:not([role]),select,textarea,input:not([type=checkbox]):not([type=radio])')) return null;
  var inner = e.querySelectorAll('input[type=checkbox],input[type=radio],[role=checkbox],[role=radio],[role=switch]');
  return inner.length === 1 ? inner[0] : null;
}
function stateOf(c) {
  if (c.tagName === 'INPUT') return c.indeterminate ? 'mixed' : c.checked;
  var a = c.getAttribute('aria-checked');
  return a === 'true' ? true : a === 'false' ? false : a === 'mixed' ? 'mixed' : null;
}
function kindOf(c) {
  if (c.tagName === 'INPUT') return c.type;
  var r = (c.getAttribute('role') || '').toLowerCase();
  return r === 'menuitemradio' ? 'radio' : r === 'menuitemcheckbox' ? 'checkbox' : r;
}
function reaches(e, x, y) {
  var root = e.getRootNode && e.getRootNode().elementFromPoint ? e.getRootNode() : e.ownerDocument;
  var h = root.elementFromPoint(x, y);
  return !!h && (h === e || e.contains(h));
}
`;

const PROBE = inPage<void, Probe | null>(`${CONTROL}
var c = control(el);
if (!c) return null;
var r = el.getBoundingClientRect(), hits = false;
if (r.width >= 1 && r.height >= 1 && getComputedStyle(el).visibility === 'visible') {
  if (r.bottom < 0 || r.top > innerHeight || r.right < 0 || r.left > innerWidth) { el.scrollIntoView({ block: 'center', inline: 'center' }); r = el.getBoundingClientRect(); }
  hits = reaches(el, r.left + r.width / 2, r.top + r.height / 2);
}
return { kind: kindOf(c), checked: stateOf(c), hits: hits };`);

const STATE = inPage<void, Checked>(`${CONTROL} var c = control(el); return c ? stateOf(c) : null;`);

/** The control's first visible <label> and a point on it that reaches the label itself (not a link inside it). */
const LABEL = inPage<void, { label: Element; x: number; y: number } | null>(`${CONTROL}
var c = control(el);
if (!c) return null;
var labels = [];
if (c.labels) for (var i = 0; i < c.labels.length; i++) labels.push(c.labels[i]);
var wrap = c.parentElement && c.parentElement.closest('label');
if (wrap && labels.indexOf(wrap) < 0) labels.push(wrap);
for (var k = 0; k < labels.length; k++) {
  var lb = labels[k];
  if (getComputedStyle(lb).visibility !== 'visible') continue;
  var rect = lb.getBoundingClientRect();
  if (rect.width < 1 || rect.height < 1) continue;
  if (rect.bottom < 0 || rect.top > innerHeight) { lb.scrollIntoView({ block: 'center' }); rect = lb.getBoundingClientRect(); }
  var my = rect.top + rect.height / 2, xs = [rect.left + rect.width / 2, rect.left + 3, rect.right - 3];
  for (var j = 0; j < xs.length; j++) {
    var h = (lb.getRootNode().elementFromPoint ? lb.getRootNode() : document).elementFromPoint(xs[j], my);
    if (!h || !(h === lb || lb.contains(h))) continue;
    var inner = h.closest('a,button,select,textarea,input');
    if (inner && inner !== c && lb.contains(inner)) continue;
    return { label: lb, x: xs[j] - rect.left, y: my - rect.top };
  }
}
return null;`);

/** Focuses the control; whether focus landed on it (a display:none input cannot take it). */
const FOCUS = inPage<void, boolean>(`${CONTROL}
var c = control(el);
if (!c) return false;
try { c.focus({ preventScroll: false }); } catch (e) { return false; }
return c.matches(':focus');`);

const CONTROL_HANDLE = inPage<void, Element | null>(`${CONTROL} return control(el);`);

const stateWord = (c: Checked) => (c === 'mixed' ? 'mixed' : c ? 'checked' : 'unchecked');

const CHECKABLE_ROLES = new Set(['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio']);

/** Whether an observed element may stand for a checkable control (only those cost the probe's round trip). */
export function mayBeCheckable(el: ObservedElement): boolean {
  return CHECKABLE_ROLES.has(el.role) || el.tag === 'label' || el.states.checked !== undefined;
}

/** Whether the element is, labels or wraps one checkable control (then the click goes through clickCheckable). */
export async function probeCheckable(loc: Locator, tc: ToolContext): Promise<Probe | null> {
  const probe = await loc.evaluate(PROBE, undefined, { timeout: Math.min(2_000, remaining(tc.run, 2_000)) }).catch(() => null);
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
  const state = (): Promise<Checked | typeof GONE> => loc.evaluate(STATE, undefined, { timeout: 1_000 }).catch(() => GONE);
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
  if (!tried.length) {
    throw new ToolError(`${what} cannot be clicked: its control is hidden, has no visible label to click and cannot take focus`);
  }
  const now = await state();
  const still = now === GONE || now === null ? before : now;
  throw new ToolError(`${what} did not change: it is still ${stateWord(still)} (tried ${tried.join(', then ')})`);
}
