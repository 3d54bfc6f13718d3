/**
 * Resources an agent run never needs, refused so they cost neither transfer nor decoding: fonts (text reads the same
 * in a fallback font) and audio/video. Images stay: an image with no size of its own gives a link or button its box,
 * and a click needs that box; the failure screenshots need them too.
 *
 * Refused by the context's egress proxy, by the destination the browser declares (`Sec-Fetch-Dest`), in every realm:
 * answered 403 there, never sent, not listed as a refusal (nothing of the run's was refused). Before, a Playwright route
 * refused them, which cost every request of the run a round trip to this process.
 */
export const UNNEEDED_DESTINATIONS: ReadonlySet<string> = new Set(['font', 'audio', 'video']);
