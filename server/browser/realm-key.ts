import { randomBytes } from 'node:crypto';

/**
 * The secret by which the realms of one page find each other's toString masks (page-code/native-masks.page.ts): in the
 * scripts of ours every realm runs first, which no page reads. One per server process: a page's realms all come from
 * one browser context of one process; a page that knew it could only learn that the page code is ours.
 */
export const REALM_KEY = randomBytes(24).toString('base64url');
