import type { Page } from 'playwright-core';

/** Screenshots on failed steps: small JPEGs, dropped when still too large for the record. */
const MAX_SCREENSHOT_BYTES = 150 * 1024;
/**
 * How long a failure's screenshot may take. It is what a developer reads to see why a run failed, so it is worth a few
 * seconds: at 2 s a busy machine (three test workers beside Chromium on two cores) lost it.
 */
const SCREENSHOT_TIMEOUT_MS = 5_000;

export async function failureScreenshot(page: Page | undefined): Promise<string | undefined> {
  if (!page || page.isClosed()) return undefined;
  try {
    // CSS pixels: a device at pixel ratio 2 would otherwise be captured, encoded and kept at four times the pixels.
    const shot = await page.screenshot({
      type: 'jpeg',
      quality: 40,
      scale: 'css',
      timeout: SCREENSHOT_TIMEOUT_MS,
      animations: 'disabled',
    });
    return shot.length <= MAX_SCREENSHOT_BYTES ? shot.toString('base64') : undefined;
  } catch {
    return undefined;
  }
}

/** The page's URL without throwing on a closed page. */
export function pageUrl(page: Page | undefined): string {
  try {
    return page && !page.isClosed() ? page.url() : '';
  } catch {
    return '';
  }
}

export const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0].slice(0, 500);
