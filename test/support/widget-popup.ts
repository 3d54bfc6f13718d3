import type { Page } from 'playwright-core';

/**
 * Clicks the connect widget's Close button in its popup and waits until the popup is gone. The click closes the
 * popup; when that lands before Playwright's post-click checks, click() reports the page as closed. That is the
 * outcome wanted, so only that error is ignored, and only once the popup really is closed.
 */
export async function closeWidgetPopup(popup: Page): Promise<void> {
  const closed = popup.waitForEvent('close');
  await popup
    .getByRole('button', { name: 'Close', exact: true })
    .click()
    .catch((err: unknown) => {
      if (!popup.isClosed()) throw err;
    });
  await closed;
}
