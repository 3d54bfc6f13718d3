/**
 * A Playwright selector engine, `agentlink-ref=<token>`, that finds an element the agent holds a reference to
 * without anything on the page: it runs in Playwright's isolated (utility) world, whose DOM is the page's and whose
 * globals the page's scripts cannot see, and looks the token up in a map of that world. The observation puts its
 * elements there (agent/observation/element-refs.ts) — by DevTools node resolution, or through an element handle's
 * query `agentlink-ref=+<generation>:<token>`, which registers the element it is asked from — so the tools act through
 * ordinary locators (actionability checks, frames) while the page carries no attribute of ours (issue 36). A read of a
 * locator's elements holds them the same way, `agentlink-ref=!<token>` (locator-reads.ts).
 */
export const REF_ENGINE = 'agentlink-ref';

/** The utility world's global holding the map (never the page's: it is another world). */
export const REF_STORE = '__agentlinkRefs';

/**
 * The utility world's global holding the elements a locator found for a read (`agentlink-ref=!<token>`), in the order
 * found, until the read takes them (locator-reads.ts).
 */
export const HELD_STORE = '__agentlinkHeld';

/** Registers `this` (an element) under a token; a newer generation starts a new map. CDP's callFunctionOn runs it. */
export const REGISTER_FN = `function (token, gen) {
  var s = globalThis.${REF_STORE};
  if (!s || s.gen !== gen) s = globalThis.${REF_STORE} = { gen: gen, m: new Map() };
  s.m.set(token, this);
}`;

const SOURCE = `({
  query(root, body) {
    if (body.charAt(0) === '!') {
      var held = globalThis.${HELD_STORE} || (globalThis.${HELD_STORE} = new Map());
      var list = held.get(body.slice(1)) || [];
      if (list.indexOf(root) < 0) list.push(root);
      held.set(body.slice(1), list);
      return root;
    }
    if (body.charAt(0) === '+') {
      var i = body.indexOf(':');
      (${REGISTER_FN}).call(root, body.slice(i + 1), Number(body.slice(1, i)));
      return root;
    }
    var s = globalThis.${REF_STORE};
    var el = s && s.m.get(body);
    return el && el.isConnected && el.ownerDocument === (root.ownerDocument || root) ? el : null;
  },
  queryAll(root, body) {
    var el = this.query(root, body);
    return el ? [el] : [];
  },
})`;

let registered: Promise<void> | undefined;

/**
 * Registers the engine with this process's Playwright, once. A page's injected script takes the engines registered
 * when it is made, so this runs before any browser is launched (chromium.ts) and again, harmlessly, where the
 * observation is used.
 */
export function registerRefEngine(): Promise<void> {
  // Playwright is loaded here, on first use, not by a static import: this module sits under the app's import graph
  // (chromium.ts, the observation), and a process or test that never drives a browser should not load playwright-core.
  registered ??= import('playwright-core')
    .then(({ selectors }) => selectors.register(REF_ENGINE, { content: SOURCE }, { contentScript: true }))
    .catch((err: unknown) => {
      if (!/already been registered/.test(String(err))) throw err;
    });
  return registered;
}

/** The selector that holds each element of the locator it follows under `token`, for a read (locator-reads.ts). */
export const heldSelector = (token: string) => `${REF_ENGINE}=!${token}`;

/** The selector of a registered token (a token never registered matches nothing). */
export const refSelector = (token: string | null) => `${REF_ENGINE}=${token ?? 'none'}`;
