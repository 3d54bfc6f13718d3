import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { ConfigError } from '../../server/config';
import { INTEGRATIONS } from '../../server/integrations';
import { githubProvider } from '../../server/integrations/github/github.provider';
import { defineProvider } from '../../server/providers/declaration';
import { loadProvidersFile } from '../../server/providers/providers-file';
import { describeEachStore } from '../support/app';
import { createOrg, get, productionHeaders, sandboxHeaders } from '../support/helpers';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-providers-file-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const write = (name: string, text: string) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
};

const OPERATOR_ID = '3c9a1f0e-7b2d-4e8f-9a6c-5d4b3a2f1e07';
const declaration = {
  providerId: OPERATOR_ID,
  name: 'Intranet Wiki',
  slug: 'wiki',
  category: 'developer',
  environment: 'production',
  homeUrl: 'https://wiki.example.com/',
  loginUrl: 'https://wiki.example.com/login',
  allowedOrigins: ['wiki.example.com'],
  identityProviders: ['https://login.example-idp.com'],
  logo: 'https://wiki.example.com/logo.png',
  signedIn: { cookies: ['wiki_session'] },
  loginPagePattern: '^https://wiki\\.example\\.com/(login|sso)',
};

const YAML_TEXT = `# operator providers
providers:
  - providerId: ${OPERATOR_ID}
    name: Intranet Wiki
    slug: wiki
    category: developer
    environment: production
    homeUrl: https://wiki.example.com/
    loginUrl: https://wiki.example.com/login
    allowedOrigins: [wiki.example.com]
    identityProviders: ["https://login.example-idp.com"]
    logo: https://wiki.example.com/logo.png
    signedIn: { cookies: [wiki_session] }
    loginPagePattern: '^https://wiki\\.example\\.com/(login|sso)'
    login:
      usernameLabel: Email
      form:
        username: { label: Email }
        password: { label: Password }
        submit: { role: button, name: Sign in }
      success: [{ cookie: wiki_session }]
      invalidCredentials: [{ alert: { pattern: wrong password, flags: i } }]
      locked: []
`;

const builtIns = () => [githubProvider];

describe('AGENTLINK_PROVIDERS_FILE', () => {
  it('reads JSON: a list under providers, each compiled (patterns as RegExp), marked as the operator’s', () => {
    const [p] = loadProvidersFile(write('providers.json', JSON.stringify({ providers: [declaration] })), builtIns());
    expect(p).toMatchObject({ providerId: OPERATOR_ID, slug: 'wiki', environment: 'production', source: 'operator' });
    expect(p.loginPagePattern).toBeInstanceOf(RegExp);
    expect(p.loginPagePattern?.test('https://wiki.example.com/sso/start')).toBe(true);
  });

  it('reads YAML (.yaml), with its login recipe', () => {
    const [p] = loadProvidersFile(write('providers.yaml', YAML_TEXT), builtIns());
    expect(p).toMatchObject({ slug: 'wiki', identityProviders: ['https://login.example-idp.com'] });
    expect(p.login?.invalidCredentials[0].alert).toEqual(/wrong password/i);
  });

  it.each([
    ['a field of the wrong shape', { ...declaration, category: 'shopping' }, 'providers[0].category: '],
    [
      'a non-public address in production',
      { ...declaration, allowedOrigins: ['wiki.example.com', '192.168.1.20'] },
      'providers[0].allowedOrigins[1]: 192.168.1.20 is not a public address',
    ],
    ['no providerId', { ...declaration, providerId: undefined }, 'providers[0].providerId: is required in the providers file'],
    ['an unknown field', { ...declaration, colour: 'red' }, 'providers[0].(root): unknown field(s): colour'],
    ['a slug a built-in has', { ...declaration, slug: 'github' }, 'providers[0].slug: is already used by provider github'],
  ])('refuses the start on %s, naming the file and the path', (_what, entry, expected) => {
    const file = write('bad.json', JSON.stringify({ providers: [entry] }));
    expect(() => loadProvidersFile(file, builtIns())).toThrow(ConfigError);
    expect(() => loadProvidersFile(file, builtIns())).toThrow(`AGENTLINK_PROVIDERS_FILE ${file}: ${expected}`);
  });

  it('refuses a file that is not JSON or YAML, or missing', () => {
    const json = write('broken.json', '{ "providers": [');
    expect(() => loadProvidersFile(json, [])).toThrow(new RegExp(`^AGENTLINK_PROVIDERS_FILE ${json}: \\(file\\): is not valid JSON`));
    const yaml = write('broken.yml', 'providers: [\n  - a: b\n   c');
    expect(() => loadProvidersFile(yaml, [])).toThrow(/: \(file\): is not valid YAML/);
    expect(() => loadProvidersFile(path.join(dir, 'absent.json'), [])).toThrow(/absent\.json: \(file\): cannot be read \(ENOENT\)/);
    expect(() => loadProvidersFile(write('scalar.json', '42'), [])).toThrow(/: providers: must be a list of provider declarations/);
  });

  it('built-in providers go through the same checks: a bad one stops the start with its path', () => {
    const { providerId: _id, environment: _env, ...rest } = declaration;
    expect(() =>
      defineProvider({ ...rest, providerId: OPERATOR_ID, environment: 'production', category: 'developer', homeUrl: 'https://10.1.2.3/' }),
    ).toThrow('built-in provider wiki: homeUrl: 10.1.2.3 is not one of allowedOrigins');
    const origins = { publicUrl: 'http://localhost:4000', sandboxHostSuffix: 'sandbox.localhost' };
    for (const integration of INTEGRATIONS) {
      const p = integration.provider(origins);
      // A recipe's success signals, or (a provider signed in to in the live view, such as Lumen) a signed-in signal.
      expect(p.login?.success.length ?? p.signedIn?.cookies?.length).toBeGreaterThan(0);
      expect(p.signedIn ?? null).toEqual(p.environment === 'sandbox' ? expect.objectContaining({ cookies: expect.any(Array) }) : null);
    }
  });
});

const startFile = write('start.json', JSON.stringify([declaration]));

describeEachStore(
  'operator providers at start-up',
  (t) => {
    it('serves the file’s providers in their environment, as the operator’s, to every organization', async () => {
      const org = await createOrg(t, 'File Co');
      const prod = await get(t, '/api/providers', productionHeaders(org));
      expect(prod.body.providers).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ providerId: OPERATOR_ID, source: 'operator', logo: 'https://wiki.example.com/logo.png' }),
        ]),
      );
      const sandbox = await get(t, '/api/providers', sandboxHeaders(org));
      expect(sandbox.body.providers.map((p: { providerId: string }) => p.providerId)).not.toContain(OPERATOR_ID);
      const one = await get(t, `/api/providers/${OPERATOR_ID}`, productionHeaders(org));
      expect(one.body).toMatchObject({ source: 'operator', declaration: null });
    });
  },
  { AGENTLINK_PROVIDERS_FILE: startFile },
);
