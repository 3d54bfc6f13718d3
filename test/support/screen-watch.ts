import type { Page } from 'playwright-core';

export interface WantedScreens {
  /** A level-1 heading's whole text. */
  heading: string;
  /** A text anywhere on the page (omit to watch the heading only). */
  text?: string;
}

/**
 * What the page itself saw on screen as it changed: a level-1 heading, or a text of the page, reported through a binding
 * on each DOM change. For screens that show briefly ("Connected!" for 600 ms before a redirect, 900 ms before a popup
 * closes): a wait from the test polls, and on a loaded machine it missed such a screen (CI: 20 s timeout) even when it
 * started before the screen came. Watches the document open now (a popup already loaded) and every later one.
 */
export async function watchScreens(p: Page, wanted: WantedScreens): Promise<{ heading: boolean; text: boolean }> {
  const seen = { heading: false, text: false };
  await p.exposeBinding('__agentlinkTestSaw', (_source, what: 'heading' | 'text') => {
    seen[what] = true;
  });
  const install = (w: WantedScreens) => {
    const saw = (window as unknown as { __agentlinkTestSaw(what: string): Promise<void> }).__agentlinkTestSaw;
    const look = () => {
      if ([...document.querySelectorAll('h1')].some((h) => h.innerText.trim() === w.heading)) void saw('heading');
      if (w.text !== undefined && document.body?.innerText.includes(w.text)) void saw('text');
    };
    new MutationObserver(look).observe(document, { subtree: true, childList: true, characterData: true });
    look();
  };
  await p.addInitScript(install, wanted);
  await p.evaluate(install, wanted);
  return seen;
}
