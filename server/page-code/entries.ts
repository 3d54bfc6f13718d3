import type { PageEntry } from './page-bundle';

/**
 * Every module that is bundled for a browser page (see page-bundle.ts), in one list: `npm run build` bundles each
 * into dist/server/page-code/bundles.json, the page-code tests check that each bundles, and the code that runs one
 * names it from here. Files are relative to the repository root; every module of page code ends in `.page.ts`.
 */
export const PAGE_ENTRIES = {
  /** The observation's one function, `(op, args)`: snapshot, extractText, markOption, answer bindings (observation/dom/). */
  agentDom: { file: 'server/agent/observation/dom/agent-dom.page.ts', kind: 'function' },
  /** A replay's narrow search for a step's element (the snapshot's rules, one role). */
  findTargets: { file: 'server/agent/replay/find-targets.page.ts', kind: 'function' },
  /** A replay's answer bindings read back, many in one call. */
  readBindings: { file: 'server/agent/replay/read-bindings.page.ts', kind: 'function' },
  /** The click tool's checkbox/radio/switch helpers (an object of functions on the element). */
  checkable: { file: 'server/agent/tools/checkable.page.ts', kind: 'function' },
  /** The click tool's helpers for tree items and treegrid rows that open and close (state, expander, focus). */
  expandable: { file: 'server/agent/tools/expandable.page.ts', kind: 'function' },
  /** The click tool's account of what covers an element a click could not reach. */
  coverOf: { file: 'server/agent/tools/covered.page.ts', kind: 'function' },
  /** The click tool's fast path: the actionability check and the click guard. */
  directClick: { file: 'server/agent/tools/direct-click.page.ts', kind: 'function' },
  /** The scroll tool's scroll of an element's own scroll area. */
  scroll: { file: 'server/agent/tools/scroll.page.ts', kind: 'function' },
  /** The type tool's field description and read-back. */
  typeField: { file: 'server/agent/tools/type.page.ts', kind: 'function' },
  /** waitForQuiet's in-page half: resolves once the DOM has stopped changing. */
  pageQuiet: { file: 'server/browser/page-quiet.page.ts', kind: 'function' },
  /** waitForReady's in-page half: resolves once the DOM is still and the page shows its content. */
  pageReady: { file: 'server/browser/page-ready.page.ts', kind: 'function' },
  /** Every document's first WebAuthn call waits for the page's environment (server/browser/webauthn-environment.ts). */
  webauthnGate: { file: 'server/browser/webauthn-gate.page.ts', kind: 'function' },
  /** A device's prelude: what every realm of its contexts says of the device (server/browser/device-identity.ts). */
  device: { file: 'server/browser/device.page.ts', kind: 'function' },
  /** The dashboard's script (copy buttons), served as /dashboard/assets/dashboard.js. */
  dashboard: { file: 'server/dashboard/dashboard.page.ts', kind: 'script' },
  /** The connect widget, served as /link/widget.js: the modules under connect/widget/page/, from main.ts. */
  widget: { file: 'server/connect/widget/page/main.ts', kind: 'script' },
} as const satisfies Record<string, PageEntry>;

export type PageEntryName = keyof typeof PAGE_ENTRIES;
