import {
  boundSession,
  contextStorageState,
  type ProviderSession,
  readSession,
  SessionFormatError,
} from '../../server/browser/session-format';

/** The sealed session's format: versioned, backward compatible with plain storage states, and bounded. */
const cookie = (value: string) => ({
  name: 'sid',
  value,
  domain: 'orbit.sandbox.localhost',
  path: '/',
  expires: -1,
  httpOnly: true,
  secure: false,
  sameSite: 'Lax' as const,
});
const database = (name: string, bytes: number) => ({
  name,
  version: 1,
  stores: [{ name: 'kv', autoIncrement: false, records: [{ key: 'k', value: 'x'.repeat(bytes) }], indexes: [] }],
});
const ORBIT = 'http://orbit.sandbox.localhost:4000';

describe('provider session format', () => {
  it('reads a session sealed before (a plain storage state) as it is, and the current format', () => {
    const legacy = { cookies: [cookie('a')], origins: [{ origin: ORBIT, localStorage: [{ name: 'k', value: 'v' }] }] };
    expect(readSession(legacy)).toEqual(legacy);
    const current: ProviderSession = {
      format: 2,
      cookies: [cookie('a')],
      origins: [{ origin: ORBIT, localStorage: [], indexedDB: [database('auth', 10)] }],
      sessionStorage: [{ origin: ORBIT, items: [{ name: 'tab', value: '1' }] }],
    };
    expect(readSession(JSON.parse(JSON.stringify(current)))).toEqual(current);
  });

  it('refuses what it cannot restore whole: another format, a malformed origin or sessionStorage', () => {
    for (const bad of [
      null,
      { cookies: [] },
      { format: 3, cookies: [], origins: [] },
      { cookies: [], origins: [{ origin: ORBIT }] },
      { cookies: [], origins: [{ origin: ORBIT, localStorage: [], indexedDB: 'x' }] },
      { format: 2, cookies: [], origins: [], sessionStorage: [{ origin: ORBIT, items: [{ name: 1 }] }] },
    ]) {
      expect(() => readSession(bad)).toThrow(SessionFormatError);
    }
  });

  it("restores only the provider's origins", () => {
    const session: ProviderSession = {
      format: 2,
      cookies: [cookie('a')],
      origins: [
        { origin: ORBIT, localStorage: [] },
        { origin: 'http://elsewhere.example', localStorage: [{ name: 'k', value: 'v' }] },
      ],
    };
    expect(contextStorageState(session, (o) => o === ORBIT)).toEqual({
      cookies: [cookie('a')],
      origins: [{ origin: ORBIT, localStorage: [] }],
    });
  });

  it('keeps a session within the bound as it is', () => {
    const session: ProviderSession = { format: 2, cookies: [cookie('a')], origins: [], sessionStorage: [] };
    expect(boundSession(session, 10_000)).toEqual({ session, dropped: [] });
  });

  it('drops the largest parts first (one database at a time), never the cookies, and names what it dropped', () => {
    const session: ProviderSession = {
      format: 2,
      cookies: [cookie('a')],
      origins: [
        {
          origin: ORBIT,
          localStorage: [{ name: 'small', value: 'x'.repeat(100) }],
          indexedDB: [database('auth', 50), database('cache', 20_000)],
        },
      ],
      sessionStorage: [{ origin: ORBIT, items: [{ name: 'big', value: 'y'.repeat(8_000) }] }],
    };
    const bounded = boundSession(session, 10_000);
    expect(bounded.dropped).toEqual([expect.stringMatching(/^IndexedDB cache of http:\/\/orbit.sandbox.localhost:4000 \(\d+ bytes\)$/)]);
    expect(JSON.stringify(bounded.session).length).toBeLessThanOrEqual(10_000);
    // The sign-in's own small database stays, with everything else that fits.
    expect(bounded.session!.origins[0].indexedDB!.map((d) => (d as { name: string }).name)).toEqual(['auth']);
    expect(bounded.session!.sessionStorage).toEqual(session.sessionStorage);
    expect(bounded.session!.cookies).toEqual(session.cookies);
    // The input is left as it was.
    expect(session.origins[0].indexedDB).toHaveLength(2);

    const tighter = boundSession(session, 2_000);
    expect(tighter.dropped.map((d) => d.split(' (')[0])).toEqual([`IndexedDB cache of ${ORBIT}`, `sessionStorage of ${ORBIT}`]);
  });

  it('gives up (null) when the cookies alone are over the bound', () => {
    const session: ProviderSession = { format: 2, cookies: [cookie('z'.repeat(5_000))], origins: [{ origin: ORBIT, localStorage: [] }] };
    expect(boundSession(session, 1_000)).toEqual({ session: null, dropped: [] });
  });
});
