import { rpIdFits } from '../../server/connect/passkey-sign-in';

/** Where a connection's passkey may be loaded: a page whose host is its RP ID or under it, never a look-alike or a parent. */
describe('rpIdFits', () => {
  it.each([
    ['quill.sandbox.localhost', 'quill.sandbox.localhost', true],
    ['example.com', 'login.example.com', true],
    ['Example.COM', 'login.example.com', true],
    ['login.example.com', 'example.com', false],
    ['example.com', 'evilexample.com', false],
    ['example.com', 'example.com.evil.net', false],
    ['com', 'example.com', false],
    ['quill.sandbox.localhost', 'orbit.sandbox.localhost', false],
    [undefined, 'example.com', false],
  ])('a credential of %s on a page of %s: %s', (rpId, host, fits) => {
    expect(rpIdFits(rpId, host)).toBe(fits);
  });
});
