import { ProviderDeclarationSchema, regexProblem } from '../../contract/provider-declaration';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { compileDeclaration } from '../../server/providers/declaration';
import { isProviderLoginPage, type ProviderDefinition, providerLogoDataUrl, providerLogoUrl } from '../../server/providers/provider';

const isProviderLoginPageOf = (p: ProviderDefinition, url: string) => isProviderLoginPage(p, new URL(url));

/** The declaration's own rules: patterns the server may run, origin entries as the egress policy reads them. */
describe('provider declarations', () => {
  it.each([
    ['^/login(/|$)', null],
    ['(code|verification).*(not correct|incorrect)', null],
    ['^https?://[^/]+/(?!login(/|$))', null],
    ['(a+)+$', 'a quantified group holds a quantifier (it can backtrack without end)'],
    ['(\\w*x)*', 'a quantified group holds a quantifier (it can backtrack without end)'],
    ['((ab)*c){2,}', 'a quantified group holds a quantifier (it can backtrack without end)'],
    ['(a)\\1', 'back-references are not allowed'],
    ['(unclosed', expect.stringMatching(/^not a valid regular expression/)],
  ])('pattern %s', (source, problem) => {
    expect(regexProblem(source)).toEqual(problem);
  });

  it('accepts host names and full origins, and refuses anything with a path, credentials or another scheme', () => {
    const base = {
      name: 'P',
      slug: 'p',
      category: 'social',
      homeUrl: 'https://p.example/',
      loginUrl: 'https://p.example/login',
      logo: 'https://p.example/logo.png',
    };
    const ok = ProviderDeclarationSchema.safeParse({
      ...base,
      allowedOrigins: ['p.example', '*.cdn.example', 'https://api.example:8443', '[::1]'],
    });
    expect(ok.success).toBe(true);
    for (const bad of ['https://p.example/path', 'https://user@p.example', 'ftp://p.example', 'p example', 'http://']) {
      const res = ProviderDeclarationSchema.safeParse({ ...base, allowedOrigins: ['p.example', bad] });
      expect({ bad, paths: res.success ? [] : res.error.issues.map((i) => i.path.join('.')) }).toEqual({
        bad,
        paths: ['allowedOrigins.1'],
      });
    }
    const svg = ProviderDeclarationSchema.safeParse({ ...base, allowedOrigins: ['p.example'], logo: `<svg>${'x'.repeat(17_000)}</svg>` });
    expect(svg.success ? [] : svg.error.issues.map((i) => i.path.join('.'))).toEqual(['logo']);
  });

  it('the egress policy reads full origins exactly, and the identity providers during sign-in only', () => {
    const parsed = ProviderDeclarationSchema.parse({
      name: 'P',
      slug: 'p',
      category: 'social',
      homeUrl: 'https://p.example/',
      loginUrl: 'https://p.example/login',
      logo: 'https://p.example/logo.png',
      allowedOrigins: ['p.example', 'https://api.example:8443'],
      identityProviders: ['https://accounts.idp.example'],
      loginPagePattern: '^https://p\\.example/(login|sso)',
    });
    const provider = compileDeclaration(parsed, { providerId: '00000000-0000-4000-8000-000000000001', environment: 'production' });
    const run = EgressPolicy.forProvider(provider, 'production');
    const signIn = EgressPolicy.forProvider(provider, 'production', { signIn: true });
    expect(run.checkUrl('https://api.example:8443/v1').ok).toBe(true);
    expect(run.checkUrl('https://api.example/v1')).toMatchObject({ ok: false, kind: 'port' });
    expect(run.checkUrl('https://accounts.idp.example/o/oauth2')).toMatchObject({ ok: false, kind: 'host' });
    expect(signIn.checkUrl('https://accounts.idp.example/o/oauth2').ok).toBe(true);
    expect(signIn.checkUrl('http://accounts.idp.example:443/')).toMatchObject({ ok: false, kind: 'scheme' });
    expect(isProviderLoginPageOf(provider, 'https://p.example/sso/start')).toBe(true);
    expect(isProviderLoginPageOf(provider, 'https://p.example/home')).toBe(false);
  });

  it("takes the page-ready sign (readyWhen) and the live view's size (liveViewport), bounded, into the runtime form", () => {
    const base = {
      name: 'P',
      slug: 'p',
      category: 'developer',
      homeUrl: 'https://p.example/',
      loginUrl: 'https://p.example/login',
      allowedOrigins: ['p.example'],
      logo: 'https://p.example/logo.png',
    };
    const ok = ProviderDeclarationSchema.safeParse({
      ...base,
      readyWhen: { selector: '#package-list', text: 'Packages' },
      liveViewport: { width: 1440, height: 900 },
    });
    expect(ok.success).toBe(true);
    const compiled = compileDeclaration(ok.success ? ok.data : (undefined as never), {
      providerId: crypto.randomUUID(),
      environment: 'production',
    });
    expect(compiled).toMatchObject({
      readyWhen: { selector: '#package-list', text: 'Packages' },
      liveViewport: { width: 1440, height: 900 },
    });
    const refused = (extra: Record<string, unknown>) => {
      const res = ProviderDeclarationSchema.safeParse({ ...base, ...extra });
      return res.success ? [] : res.error.issues.map((i) => i.path.join('.'));
    };
    expect(refused({ readyWhen: {} })).toEqual(['readyWhen']);
    expect(refused({ readyWhen: { selector: 'x'.repeat(501) } })).toEqual(['readyWhen.selector']);
    expect([...new Set(refused({ readyWhen: { script: 'alert(1)' } }))]).toEqual(['readyWhen']);
    expect(refused({ liveViewport: { width: 100, height: 800 } })).toEqual(['liveViewport.width']);
    expect(refused({ liveViewport: { width: 1280, height: 5000 } })).toEqual(['liveViewport.height']);
  });

  it("takes the login page's passkey control (passkeySignIn) in the target shape, its pattern compiled", () => {
    const base = {
      name: 'P',
      slug: 'p',
      category: 'developer',
      homeUrl: 'https://p.example/',
      loginUrl: 'https://p.example/login',
      allowedOrigins: ['p.example'],
    };
    const ok = ProviderDeclarationSchema.safeParse({
      ...base,
      passkeySignIn: { role: 'button', name: { pattern: '^use a passkey$', flags: 'i' } },
    });
    expect(ok.success).toBe(true);
    const compiled = compileDeclaration(ok.success ? ok.data : (undefined as never), {
      providerId: crypto.randomUUID(),
      environment: 'production',
    });
    expect(compiled.passkeySignIn).toEqual({ role: 'button', name: /^use a passkey$/i });
    const refused = (passkeySignIn: unknown) => ProviderDeclarationSchema.safeParse({ ...base, passkeySignIn }).success === false;
    expect(refused({ role: 'heading', name: 'Passkey' })).toBe(true);
    expect(refused({ role: 'button', name: { pattern: '(a+)+' } })).toBe(true);
    expect(refused({ role: 'button', name: 'Passkey', script: 'x' })).toBe(true);
  });

  it('the widget never loads a logo from a declared host: an https logo becomes a monogram data: URL', () => {
    const remote = { name: 'acme <CRM>', logo: 'https://cdn.acme.example/logo.png' };
    expect(providerLogoUrl(remote)).toBe('https://cdn.acme.example/logo.png');
    const shown = providerLogoDataUrl(remote);
    expect(shown).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(shown.split(',')[1], 'base64').toString()).toContain('>A</text>');
  });
});
