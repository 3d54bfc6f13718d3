import type { CDPSession, Page } from 'playwright-core';

import type { InputMessage } from './live-protocol';

const CDP_BUTTON = { left: 'left', middle: 'middle', right: 'right', none: 'none' } as const;
const TOUCH_TYPE = { start: 'touchStart', move: 'touchMove', end: 'touchEnd', cancel: 'touchCancel' } as const;

/** The person's input on a live view (validated: live-protocol.ts), played on the page in AgentLink's browser. */
export async function dispatchInput(page: Page, cdp: CDPSession, m: InputMessage): Promise<void> {
  // One typed door for the two CDP input methods (their parameter types differ only in what we already validated).
  const input = (method: 'Input.dispatchMouseEvent' | 'Input.dispatchTouchEvent', params: Record<string, unknown>) =>
    (cdp.send as (m: string, p: Record<string, unknown>) => Promise<unknown>).call(cdp, method, params);
  switch (m.t) {
    case 'move':
      return void (await input('Input.dispatchMouseEvent', {
        type: 'mouseMoved',
        x: m.x,
        y: m.y,
        buttons: m.buttons ?? 0,
        modifiers: m.mods ?? 0,
      }));
    case 'down':
    case 'up':
      return void (await input('Input.dispatchMouseEvent', {
        type: m.t === 'down' ? 'mousePressed' : 'mouseReleased',
        x: m.x,
        y: m.y,
        button: CDP_BUTTON[m.button ?? 'left'],
        buttons: m.t === 'down' ? 1 : 0,
        clickCount: m.clickCount ?? 1,
        modifiers: m.mods ?? 0,
      }));
    case 'wheel':
      return void (await input('Input.dispatchMouseEvent', {
        type: 'mouseWheel',
        x: m.x,
        y: m.y,
        deltaX: m.dx,
        deltaY: m.dy,
        modifiers: m.mods ?? 0,
      }));
    case 'keydown':
    case 'keyup':
      return key(page, m.t, m.key);
    case 'text':
      return page.keyboard.insertText(m.text);
    case 'touch':
      return void (await input('Input.dispatchTouchEvent', { type: TOUCH_TYPE[m.phase], touchPoints: m.points }));
    case 'frameSize':
      return; // handled before the queue (resizeFrames)
  }
}

/** Keys by their DOM `key` name (Playwright knows the US layout's codes); a character it does not know is typed as text. */
async function key(page: Page, kind: 'keydown' | 'keyup', key: string): Promise<void> {
  try {
    if (kind === 'keydown') await page.keyboard.down(key);
    else await page.keyboard.up(key);
  } catch {
    if (kind === 'keydown' && [...key].length === 1) await page.keyboard.insertText(key);
  }
}
