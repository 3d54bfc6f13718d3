import { safeNext } from '../../server/sandbox/kit/site-app';

/** The legitimate side of safeNext (the attacks are in test/security/open-redirect.security.test.ts). */
describe('safeNext', () => {
  it('keeps an on-site path with its query and fragment', () => {
    expect(safeNext('/feed?tab=latest#top', '/home')).toBe('/feed?tab=latest#top');
    expect(safeNext('/search?q=a%20b', '/home')).toBe('/search?q=a%20b');
  });

  it('normalises dot segments, so what the browser follows is what was checked', () => {
    expect(safeNext('/a/../feed', '/home')).toBe('/feed');
  });

  it('falls back for anything that is not a string path', () => {
    expect(safeNext(undefined, '/home')).toBe('/home');
    expect(safeNext(['/feed'], '/home')).toBe('/home');
    expect(safeNext('', '/home')).toBe('/home');
    expect(safeNext(`/${'a'.repeat(600)}`, '/home')).toBe('/home');
  });
});
