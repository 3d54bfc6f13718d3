/**
 * In the page: the click tool's fast path (direct-click.ts) — the proof that an element can take a click now, and
 * the guard that cancels a click whose first button event reaches anything else.
 */
export interface CheckArgs {
  /** Date.now() past which the check answers null: the node side has stopped waiting. */
  notAfter: number;
  /** The guard takes itself down after this long even if the click's last event never came. */
  guardMs: number;
}

/**
 * The click point, and the guard's answer: what the click reached instead of the element (null: the element), taking
 * the guard down. Handed back to Node as a handle (a DevTools reference): nothing of it is on the window, where the
 * page's scripts could find it.
 */
export interface Guarded {
  x: number;
  y: number;
  answer(): string | null;
}

/**
 * Resolves the click point, or null when the element is not provably clickable there now; with a point, the
 * guard is in place for the click that follows.
 */
function checkAndGuard(el: Element, a: CheckArgs): Promise<Guarded | null> {
  return new Promise((resolve) => {
    // the element the observation listed, by reference (element-refs.ts): it must still be in the top document
    if (!el.isConnected || el.ownerDocument !== document || el.getRootNode() !== document) return resolve(null);
    if (el.matches(':disabled') || el.closest('[aria-disabled="true"], [inert]')) return resolve(null);
    if (el.checkVisibility && !el.checkVisibility({ visibilityProperty: true })) return resolve(null);
    // Something running a CSS animation or transition on the element or around it may be moving it.
    const around = (t: Element) => {
      for (let n: Element | null = el; n; n = n.parentElement) if (n === t) return true;
      return false;
    };
    const moving = document.getAnimations().some((an) => {
      const target = an.effect && (an.effect as KeyframeEffect).target;
      return an.playState === 'running' && !!target && around(target);
    });
    if (moving) return resolve(null);
    const first = el.getBoundingClientRect();
    let settled = false;
    // Script moving it is caught by comparing its box across one frame; a page that paints no frames gets the slow path.
    const timer = setTimeout(() => {
      if (!settled) {
        settled = true;
        resolve(null);
      }
    }, 100);
    requestAnimationFrame(() => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const r = el.getBoundingClientRect();
      if (r.x !== first.x || r.y !== first.y || r.width !== first.width || r.height !== first.height) return resolve(null);
      if (r.width < 1 || r.height < 1 || r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight) return resolve(null);
      const x = r.left + r.width / 2;
      const y = r.top + r.height / 2;
      // What a click at that point reaches, through open shadow roots: the element or something inside it.
      let hit = document.elementFromPoint(x, y);
      while (hit && hit.shadowRoot) {
        const inner = hit.shadowRoot.elementFromPoint(x, y);
        if (!inner || inner === hit) break;
        hit = inner;
      }
      let reaches = false;
      for (let n: Node | null = hit; n; n = n.parentNode || (n as ShadowRoot).host)
        if (n === el) {
          reaches = true;
          break;
        }
      if (!reaches || Date.now() > a.notAfter) return resolve(null);
      const types = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click'];
      let decided = false;
      let intercepted: string | null = null;
      const unguard = () => types.forEach((t) => window.removeEventListener(t, guard, true));
      function guard(ev: Event) {
        if (!ev.isTrusted) return;
        if (!decided) {
          decided = true;
          if (ev.composedPath().indexOf(el) === -1) {
            const t = ev.composedPath()[0] as Element | undefined;
            intercepted = t && t.tagName ? t.tagName.toLowerCase() : 'another element';
          }
        }
        if (intercepted) {
          ev.preventDefault();
          ev.stopImmediatePropagation();
        }
        // The click is over (a cancelled press gets no click event): later clicks are the page's own business.
        if (ev.type === 'click' || (ev.type === 'mouseup' && intercepted)) setTimeout(unguard, 0);
      }
      types.forEach((t) => window.addEventListener(t, guard, true));
      // What the guard saw stays readable until it is asked for; the guard goes when asked, or when its time is up.
      setTimeout(unguard, a.guardMs);
      resolve({
        x,
        y,
        answer: () => {
          unguard();
          return intercepted;
        },
      });
    });
  });
}

/** The click point of a check (null: unproven). */
function pointOf(guarded: Guarded | null): { x: number; y: number } | null {
  return guarded ? { x: guarded.x, y: guarded.y } : null;
}

/** What the guard saw: the tag of what the click reached instead of the element, or null; takes it down. */
function intercepted(guarded: Guarded | null): string | null {
  return guarded ? guarded.answer() : null;
}

export default { checkAndGuard, pointOf, intercepted };
