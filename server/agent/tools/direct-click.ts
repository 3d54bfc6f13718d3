import { randomBytes } from 'node:crypto';

import type { Page } from 'playwright-core';

import { INDEX_ATTRIBUTE, type ObservedElement } from '../observation';

/**
 * The click tool's fast path, for the common case: an element of the top document on a page that is standing still.
 *
 * Playwright's click proves an element actionable before it clicks (attached, visible, enabled, stable over two
 * animation frames, not covered) and guards the click itself; on a still page those proofs cost about 50 ms a
 * click (its injected script is built anew in every document, and stability waits frames), which is most of what
 * a replayed step costs beyond the page's own loading. Here the same proofs are one evaluate in the page, and the
 * click is the same trusted CDP mouse input Playwright sends (page.mouse), guarded the way Playwright guards it:
 * when the first button event of the click reaches anything but the element (a dialog slid over it meanwhile),
 * that event and the rest of the click are cancelled at the window, before the document and its elements see them.
 *
 * Whatever this cannot prove — the element is in a frame or a shadow root, off screen, disabled, hidden,
 * moving, covered, not unique, or the page does not answer quickly — is `unproven`, and nothing was clicked: the
 * caller then does Playwright's click, which waits, scrolls, retries and reports what is wrong.
 */
export type DirectClick = 'clicked' | 'unproven';

/** How long the page has to answer the check; a page whose main thread is busy longer gets Playwright's waiting click. */
const CHECK_MS = 400;
/** The guard removes itself after this long even if the click's last event never came. */
const GUARD_MS = 2_000;

/**
 * In the page (source text, see in-page.ts): resolves the click point, or null when the element is not provably
 * clickable there now. `a`: { attr, index, key, notAfter, guardMs }.
 */
const CHECK_AND_GUARD = `(a) => new Promise(function (resolve) {
  var found = document.querySelectorAll('[' + a.attr + '="' + a.index + '"]');
  if (found.length !== 1) return resolve(null);
  var el = found[0];
  if (el.matches(':disabled') || el.closest('[aria-disabled="true"], [inert]')) return resolve(null);
  if (el.checkVisibility && !el.checkVisibility({ visibilityProperty: true })) return resolve(null);
  // Something running a CSS animation or transition on the element or around it may be moving it.
  function around(t) { for (var n = el; n; n = n.parentElement) if (n === t) return true; return false; }
  var moving = document.getAnimations().some(function (an) {
    return an.playState === 'running' && an.effect && an.effect.target && around(an.effect.target);
  });
  if (moving) return resolve(null);
  var first = el.getBoundingClientRect(), settled = false;
  // Script moving it is caught by comparing its box across one frame; a page that paints no frames gets the slow path.
  var timer = setTimeout(function () { if (!settled) { settled = true; resolve(null); } }, 100);
  requestAnimationFrame(function () {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    var r = el.getBoundingClientRect();
    if (r.x !== first.x || r.y !== first.y || r.width !== first.width || r.height !== first.height) return resolve(null);
    if (r.width < 1 || r.height < 1 || r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight) return resolve(null);
    var x = r.left + r.width / 2, y = r.top + r.height / 2;
    // What a click at that point reaches, through open shadow roots: the element or something inside it.
    var hit = document.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) {
      var inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    var reaches = false;
    for (var n = hit; n; n = n.parentNode || n.host) if (n === el) { reaches = true; break; }
    if (!reaches || Date.now() > a.notAfter) return resolve(null);
    var types = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click'], decided = false, intercepted = null;
    function unguard() { types.forEach(function (t) { window.removeEventListener(t, guard, true); }); }
    function guard(ev) {
      if (!ev.isTrusted) return;
      if (!decided) {
        decided = true;
        if (ev.composedPath().indexOf(el) === -1) {
          var t = ev.composedPath()[0];
          intercepted = t && t.tagName ? t.tagName.toLowerCase() : 'another element';
        }
      }
      if (intercepted) { ev.preventDefault(); ev.stopImmediatePropagation(); }
      // The click is over (a cancelled press gets no click event): later clicks are the page's own business.
      if (ev.type === 'click' || ev.type === 'mouseup' && intercepted) setTimeout(unguard, 0);
    }
    types.forEach(function (t) { window.addEventListener(t, guard, true); });
    // What the guard saw stays readable until it is asked for, or the guard's time is up.
    window[a.key] = function () { unguard(); delete window[a.key]; return intercepted; };
    setTimeout(function () { unguard(); delete window[a.key]; }, a.guardMs);
    resolve({ x: x, y: y });
  });
})`;

/** Clicks `el` through the fast path when its actionability can be proven at once; `unproven` means nothing was clicked. */
export async function clickDirectly(page: Page, el: ObservedElement): Promise<DirectClick> {
  if (el.frame?.length || el.section) return 'unproven';
  const key = `__agentlinkClick${randomBytes(8).toString('hex')}`;
  const args = { attr: INDEX_ATTRIBUTE, index: el.index, key, notAfter: Date.now() + CHECK_MS, guardMs: GUARD_MS };
  let timer: NodeJS.Timeout | undefined;
  const point = await Promise.race([
    page.evaluate(`(${CHECK_AND_GUARD})(${JSON.stringify(args)})`).catch(() => null) as Promise<{ x: number; y: number } | null>,
    new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), CHECK_MS + 100))),
  ]).finally(() => clearTimeout(timer));
  // A guard left behind would judge the next click by this element: it is taken down whatever happens.
  const takeDown = () =>
    void page
      .evaluate(`(function (k) { if (typeof window[k] === 'function') window[k](); })(${JSON.stringify(key)})`)
      .catch(() => undefined);
  if (!point) {
    takeDown(); // a check that answered too late may have set its guard after all
    return 'unproven';
  }
  try {
    await page.mouse.click(point.x, point.y);
  } catch (err) {
    takeDown();
    throw err;
  }
  // The guard says whether the click was cancelled. A document already replaced has no guard to ask: the click
  // started that navigation, since a cancelled click does nothing.
  const intercepted = await page
    .evaluate(`(function (k) { return typeof window[k] === 'function' ? window[k]() : null; })(${JSON.stringify(key)})`)
    .catch(() => null);
  return intercepted ? 'unproven' : 'clicked';
}
