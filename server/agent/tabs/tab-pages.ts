import type { Page } from 'playwright-core';

/** How long a tab's title may take (a page busy with a script does not hold the observation up). */
const TITLE_TIMEOUT_MS = 500;

/** A tab's title, or '' when it cannot say in time (closed, or busy). */
export async function titleOf(page: Page): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const title = await Promise.race([
    page.title().catch(() => ''),
    new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(''), TITLE_TIMEOUT_MS);
    }),
  ]);
  clearTimeout(timer);
  return title;
}

/** A URL relative to the current tab's origin when it shares it (a replay runs on any port or host alias). */
export function relativeUrl(url: string, base: string): string {
  try {
    const u = new URL(url);
    const b = new URL(base);
    return u.origin === b.origin ? u.pathname + u.search : url;
  } catch {
    return url;
  }
}
