/**
 * The sandbox's test users, the same on every simulated provider (documented in the README, the way
 * Plaid documents user_good / pass_good).
 */
export type TestUserBehaviour = 'ok' | 'totp' | 'sms' | 'locked' | 'captcha' | 'expiring' | 'device';

export interface TestUser {
  username: string;
  password: string | null; // null: any password (the account is locked before it is checked)
  behaviour: TestUserBehaviour;
  displayName: string;
}

/** Base32 TOTP secret of user_mfa (RFC 6238, SHA-1, 6 digits, 30 s), published so tests can compute codes. */
export const SANDBOX_TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
export const SANDBOX_SMS_CODE = '123456';
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
];

export function findTestUser(username: string): TestUser | undefined {
  return TEST_USERS.find((u) => u.username === username);
}
