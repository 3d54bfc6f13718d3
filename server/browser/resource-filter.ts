import type { BrowserContext } from 'playwright-core';

/**
 * Resources an agent run never needs, refused in the browser so they cost neither transfer nor decoding: fonts
 * (text reads the same in a fallback font) and audio/video. Images stay: an image with no size of its own gives
 * a link or button its box, and a click needs that box; the failure screenshots need them too.
 *
 * Install it BEFORE the network guard: Playwright runs the route registered last first, so the guard still sees
 * every request (its egress check and its report of a foreign font or video come first) and only what it let
 * through reaches this filter. Refusing is all it does (never route.fetch/fulfill, which would fetch from this
 * process around the context's egress proxy).
 */
export const UNNEEDED_RESOURCE_TYPES: ReadonlySet<string> = new Set(['font', 'media']);

export async function refuseUnneededResources(context: BrowserContext): Promise<void> {
  await context.route('**/*', async (route) => {
    if (UNNEEDED_RESOURCE_TYPES.has(route.request().resourceType())) await route.abort('blockedbyclient').catch(() => undefined);
    else await route.fallback().catch(() => undefined);
  });
}
