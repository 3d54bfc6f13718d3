/**
 * The sandbox's test users, the same on every simulated provider (documented in the README, the way
 * Plaid documents user_good / pass_good).
 */
/**
 * `device`: a device prompt the recipe cannot answer. `indexeddb`: the session is a token the site's app keeps in
 * IndexedDB (kit/app-shell.ts), never a cookie. `device-bound`: the session is bound to the user agent and time zone
 * it was signed in from (kit/device-binding.ts); presented by another device, it is signed out. `step-up`: signs in
 * like `ok`, but a sensitive write asks mid-action to confirm it is them (kit/step-up.ts): Orbit asks for
 * SANDBOX_STEP_UP_CODE before a first message to someone new, ForgeHub for the password before a repository is deleted.
 */
export type TestUserBehaviour =
  | 'ok'
  | 'totp'
  | 'sms'
  | 'locked'
  | 'captcha'
  | 'expiring'
  | 'device'
  | 'indexeddb'
  | 'device-bound'
  | 'step-up'
  | 'passkey-offer'
  | 'passkey-first';

export interface TestUser {
  username: string;
  password: string | null; // null: any password (the account is locked before it is checked)
  behaviour: TestUserBehaviour;
  displayName: string;
}

/** Base32 TOTP secret of user_mfa (RFC 6238, SHA-1, 6 digits, 30 s), published so tests can compute codes. */
export const SANDBOX_TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
export const SANDBOX_SMS_CODE = '123456';
/** The code user_stepup's sites "send to their phone" when they confirm a write (Orbit: a first message to someone new). */
export const SANDBOX_STEP_UP_CODE = '246810';
/** The default lifetime of user_expiring's sessions (AGENTLINK_SANDBOX_EXPIRING_SESSION_SECONDS changes it). */
export const EXPIRING_SESSION_SECONDS = 60;

export const TEST_USERS: TestUser[] = [
  { username: 'user_good', password: 'pass_good', behaviour: 'ok', displayName: 'Grace Goodwin' },
  { username: 'user_mfa', password: 'pass_good', behaviour: 'totp', displayName: 'Milo Fairbanks' },
  { username: 'user_sms', password: 'pass_good', behaviour: 'sms', displayName: 'Sasha Mendes' },
  { username: 'user_locked', password: null, behaviour: 'locked', displayName: 'Lockie Lane' },
  { username: 'user_captcha', password: 'pass_good', behaviour: 'captcha', displayName: 'Cora Chen' },
  { username: 'user_expiring', password: 'pass_good', behaviour: 'expiring', displayName: 'Evan Expiry' },
  { username: 'user_device', password: 'pass_good', behaviour: 'device', displayName: 'Devi Prompt' },
  { username: 'user_app', password: 'pass_good', behaviour: 'indexeddb', displayName: 'Ivy Appleby' },
  { username: 'user_bound', password: 'pass_good', behaviour: 'device-bound', displayName: 'Bo Bound' },
  { username: 'user_stepup', password: 'pass_good', behaviour: 'step-up', displayName: 'Stella Stepp' },
];

/**
 * The test users the simulated sites seed content for (posts, repositories, follows …). user_app and user_bound are
 * about how a session is kept, not about content: they own none, so the seeds (and the counts tests and playbooks
 * rely on) stay as they were.
 */
export const SEEDED_TEST_USERS: readonly TestUser[] = TEST_USERS.filter(
  (u) => u.behaviour !== 'indexeddb' && u.behaviour !== 'device-bound' && u.behaviour !== 'step-up',
);

/**
 * Test users whose own actions need content of their own (a conversation to reply in, a repository to delete), added
 * after the seeded world's shared counts (stars, followers, feed and search totals) were fixed in tests and examples.
 * The sites seed them only what nobody else sees: conversations, private repositories (each site's
 * private-seed.ts). They star, follow and post nothing, so every other user's pages stay as they were.
 */
export const PRIVATELY_SEEDED_TEST_USERS: readonly TestUser[] = TEST_USERS.filter((u) => u.behaviour === 'step-up');

/**
 * The passkey users of the sandbox's passkey site (Quill, server/integrations/quill/), kept out of TEST_USERS so the other
 * sites' people and counts stay as they were; on the other sites they sign in like user_good.
 * `passkey-offer`: after the password, Quill offers "Add a passkey" (Not now works). `passkey-first`: the same offer,
 * but once the account holds a passkey its password is no longer taken (it went passwordless): only the passkey signs in.
 */
export const PASSKEY_TEST_USERS: readonly TestUser[] = [
  { username: 'user_passkey', password: 'pass_good', behaviour: 'passkey-offer', displayName: 'Pia Keyes' },
  { username: 'user_passkey_first', password: 'pass_good', behaviour: 'passkey-first', displayName: 'Percy Keyfirst' },
];

/** Whether the user's sensitive writes ask them to confirm it is them (behaviour `step-up`). */
export const asksToStepUp = (username: string) => findTestUser(username)?.behaviour === 'step-up';

export function findTestUser(username: string): TestUser | undefined {
  return TEST_USERS.find((u) => u.username === username) ?? PASSKEY_TEST_USERS.find((u) => u.username === username);
}
