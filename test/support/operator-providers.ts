import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The operator's providers file (AGENTLINK_PROVIDERS_FILE) for test sites on loopback: each a finance site at `origin`
 * with a password form ("Username", "Password", "Sign in") whose session is the `sid` cookie and whose signed-in page
 * shows #account. Returns the file and its folder (remove it after the test).
 */
export interface LoopbackProvider {
  providerId: string;
  name: string;
  slug: string;
  origin: string;
  /** More fields of the declaration (signedAgent …). */
  extra?: Record<string, unknown>;
}

export function writeOperatorProviders(prefix: string, providers: readonly LoopbackProvider[]): { dir: string; file: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const file = path.join(dir, 'providers.json');
  const declarations = providers.map(({ providerId, name, slug, origin, extra }) => ({
    providerId,
    environment: 'sandbox',
    name,
    slug,
    category: 'finance',
    homeUrl: `${origin}/`,
    loginUrl: `${origin}/login`,
    allowedOrigins: [origin],
    signedIn: { element: '#account' },
    login: {
      usernameLabel: 'Username',
      form: { username: { label: 'Username' }, password: { label: 'Password' }, submit: { role: 'button', name: 'Sign in' } },
      success: [{ cookie: 'sid' }],
      invalidCredentials: [],
      locked: [],
    },
    ...extra,
  }));
  fs.writeFileSync(file, JSON.stringify({ providers: declarations }));
  return { dir, file };
}
