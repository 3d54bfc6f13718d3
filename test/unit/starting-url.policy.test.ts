import { checkStartingUrl, hostMatchesDomain, isPrivateOrLocalHost } from '../../server/domain/starting-url.policy';
import { githubProvider as github } from '../../server/integrations/github/github.provider';
import { orbitProvider } from '../../server/integrations/orbit/orbit.provider';
import { xProvider as x } from '../../server/integrations/x/x.provider';
import type { ProviderDefinition } from '../../server/providers/catalogue';

const orbit = orbitProvider({ publicUrl: 'http://localhost:4000', sandboxHostSuffix: 'sandbox.localhost' });

/** A production provider whose allowed domains themselves point inward: only the production rules can stop these. */
const inward: ProviderDefinition = {
  ...github,
  name: 'Inward',
  homeUrl: 'https://corp.internal/',
  allowedOrigins: ['corp.internal', 'localhost', '10.0.0.5', '127.0.0.1', '169.254.169.254', '::1', 'printer.local'],
};

const reasonOf = (url: string, p: ProviderDefinition, env: 'sandbox' | 'production') => {
  const v = checkStartingUrl(url, p, env);
  return v.ok ? 'ok' : v.reason;
};

describe('checkStartingUrl', () => {
  it.each([
    ['https://github.com/', 'https://github.com/'],
    ['https://github.com/settings/profile?tab=1#x', 'https://github.com/settings/profile?tab=1#x'],
    ['https://gist.github.com/', 'https://gist.github.com/'],
    ['HTTPS://GitHub.COM/Path', 'https://github.com/Path'],
    ['https://github.com:443/', 'https://github.com/'],
  ])('allows %s in production', (raw, normalized) => {
    const v = checkStartingUrl(raw, github, 'production');
    expect(v.ok && v.url.toString()).toBe(normalized);
  });

  it('allows every domain of a provider with several', () => {
    expect(reasonOf('https://twitter.com/home', x, 'production')).toBe('ok');
    expect(reasonOf('https://x.com/home', x, 'production')).toBe('ok');
  });

  it.each([
    ['not a URL', 'github.com/settings', /absolute URL/],
    ['a relative path', '/settings', /absolute URL/],
    ['javascript:', 'javascript:alert(document.cookie)', /http or https/],
    ['data:', 'data:text/html,<script>1</script>', /http or https/],
    ['file:', 'file:///etc/passwd', /http or https/],
    ['ftp:', 'ftp://github.com/', /http or https/],
    ['ws:', 'ws://github.com/', /http or https/],
    ['credentials', 'https://user:pw@github.com/', /credentials/],
    ['a username', 'https://user@github.com/', /credentials/],
    ['a foreign domain', 'https://gitlab.com/', /not one of GitHub's domains/],
    ['a look-alike suffix', 'https://github.com.evil.com/', /not one of/],
    ['a look-alike prefix', 'https://evilgithub.com/', /not one of/],
    ['a wrong port', 'https://github.com:8443/', /port 8443/],
    // Exact origins (the egress policy's rules): the provider's scheme, and only the hosts it lists.
    ['plain http for an https provider', 'http://github.com/', /port 80 is not GitHub's/],
    ['an unlisted subdomain', 'https://evil.github.com/', /not one of/],
    ['a trailing dot', 'https://github.com./', /not one of/],
    ['the other provider', 'https://x.com/', /not one of/],
  ])('refuses %s', (_label, raw, reason) => {
    expect(reasonOf(raw, github, 'production')).toMatch(reason);
  });

  describe('production refuses local and private targets even when a provider lists them', () => {
    it.each([
      ['an IPv4 literal', 'https://10.0.0.5/', /not an IP address/],
      ['loopback', 'https://127.0.0.1/', /not an IP address/],
      ['a decimal IPv4 (normalized to 127.0.0.1)', 'https://2130706433/', /not an IP address/],
      ['a hex IPv4', 'https://0x7f.0.0.1/', /not an IP address/],
      ['link-local metadata', 'https://169.254.169.254/latest/meta-data/', /not an IP address/],
      ['IPv6 loopback', 'https://[::1]/', /not an IP address/],
      ['IPv4-mapped IPv6', 'https://[::ffff:127.0.0.1]/', /not an IP address/],
      ['localhost', 'https://localhost/', /local or private/],
      ['a subdomain of localhost', 'https://app.localhost/', /local or private/],
      ['*.internal', 'https://corp.internal/', /local or private/],
      ['a subdomain of *.internal', 'https://api.corp.internal/', /local or private/],
      ['*.local', 'https://printer.local/', /local or private/],
    ])('refuses %s', (_label, raw, reason) => {
      expect(reasonOf(raw, inward, 'production')).toMatch(reason);
    });
  });

  it('the sandbox, by design, reaches its simulated sites on localhost names', () => {
    expect(reasonOf('http://orbit.sandbox.localhost:4000/me', orbit, 'sandbox')).toBe('ok');
    // Exact origins: the default port, a subdomain and a trailing dot are other sites (another program on port 80,
    // or AgentLink itself answering an unknown host name).
    expect(reasonOf('http://orbit.sandbox.localhost/me', orbit, 'sandbox')).toMatch(/port 80 /);
    expect(reasonOf('http://x.orbit.sandbox.localhost:4000/me', orbit, 'sandbox')).toMatch(/not one of/);
    expect(reasonOf('http://orbit.sandbox.localhost.:4000/me', orbit, 'sandbox')).toMatch(/not one of/);
    expect(reasonOf('http://orbit.sandbox.localhost:4001/me', orbit, 'sandbox')).toMatch(/port 4001/);
    expect(reasonOf('http://127.0.0.1:4000/', orbit, 'sandbox')).toMatch(/not one of/);
    expect(reasonOf('http://localhost:4000/', orbit, 'sandbox')).toMatch(/not one of/);
    // The same site is refused if a production caller ever pointed at it.
    expect(reasonOf('http://orbit.sandbox.localhost:4000/me', orbit, 'production')).toMatch(/local or private/);
  });
});

describe('isPrivateOrLocalHost', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '0.0.0.0',
    '100.64.0.1',
    '::1',
    '[::1]',
    'fe80::1',
    'fc00::1',
    '::ffff:10.0.0.1',
    'localhost',
    'LOCALHOST',
    'a.localhost',
    'db.internal',
    'nas.local',
    'router.home.arpa',
    'x.localdomain',
  ])('%s is local or private', (host) => {
    expect(isPrivateOrLocalHost(host)).toBe(true);
  });

  it.each(['github.com', '140.82.112.3', '8.8.8.8', '2606:4700::1111', 'internal.example.com', 'localhost.example.com'])(
    '%s is public',
    (host) => {
      expect(isPrivateOrLocalHost(host)).toBe(false);
    },
  );
});

describe('hostMatchesDomain', () => {
  it('matches exact hosts only; subdomains only through an explicit wildcard', () => {
    expect(hostMatchesDomain('github.com', 'github.com')).toBe(true);
    expect(hostMatchesDomain('github.com', 'GitHub.COM.')).toBe(true);
    expect(hostMatchesDomain('api.github.com', 'github.com')).toBe(false);
    expect(hostMatchesDomain('github.com.', 'github.com')).toBe(false);
    expect(hostMatchesDomain('api.github.com', '*.github.com')).toBe(true);
    expect(hostMatchesDomain('github.com', '*.github.com')).toBe(false);
    expect(hostMatchesDomain('xn--bcher-kva.example', 'bücher.example')).toBe(true);
    expect(hostMatchesDomain('notgithub.com', 'github.com')).toBe(false);
    expect(hostMatchesDomain('github.com.evil', 'github.com')).toBe(false);
    expect(hostMatchesDomain('com', 'github.com')).toBe(false);
  });
});
