import { chromeBrands, clientHintHeaders } from '../../server/browser/client-hints';
import { chooseDevice, chromeUserAgent, deviceLanguages, parseDevice, upgradedDevice } from '../../server/browser/device-profile';

/** A connection's device: drawn once, consistent in itself, reporting the real Chromium version, and checked when read back. */
describe('device profiles', () => {
  it('draws the same device for the same connection, and spreads connections over the table', () => {
    expect(chooseDevice('conn_a', '143.0.7499.0')).toEqual(chooseDevice('conn_a', '143.0.7499.0'));
    const drawn = new Set(Array.from({ length: 60 }, (_, i) => JSON.stringify(chooseDevice(`conn_${i}`, '143.0.7499.0'))));
    expect(drawn.size).toBeGreaterThan(10);
  });

  it.each([
    ['Windows', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36'],
    ['macOS', 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36'],
    ['Linux', 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/143.0.0.0 Safari/537.36'],
  ] as const)('writes a desktop Chrome user agent for %s in its reduced form, never HeadlessChrome', (platform, expected) => {
    expect(chromeUserAgent(platform, '143.0.7499.0')).toBe(expected);
  });

  it('keeps every drawn device consistent: the user agent names its platform and the running version', () => {
    for (let i = 0; i < 40; i++) {
      const d = chooseDevice(`conn_${i}`, '143.0.7499.0');
      expect(d.userAgent).toBe(chromeUserAgent(d.platform, '143.0.7499.0'));
      expect(d.userAgent).not.toMatch(/Headless/);
      expect(deviceLanguages(d)[0]).toBe(d.locale);
      expect(d.viewport.width).toBeLessThanOrEqual(d.screen.width);
      expect(d.viewport.height).toBeLessThanOrEqual(d.screen.height);
      expect(d.viewport.width).toBeGreaterThanOrEqual(1280);
      expect(parseDevice(JSON.parse(JSON.stringify(d)))).toEqual(d);
    }
  });

  it('after a browser upgrade, the same device reports the new version (and nothing else changes)', () => {
    const d = chooseDevice('conn_upgrade', '143.0.7499.0');
    expect(upgradedDevice(d, '143.0.7499.0')).toBeNull();
    const next = upgradedDevice(d, '144.0.7520.12')!;
    expect(next).toEqual({ ...d, browserVersion: '144.0.7520.12', userAgent: chromeUserAgent(d.platform, '144.0.7520.12') });
    expect(next.userAgent).toContain('Chrome/144.0.0.0 ');
  });

  it('refuses a stored device that is not whole or not consistent', () => {
    const d = chooseDevice('conn_parse', '143.0.7499.0');
    for (const broken of [
      null,
      'x',
      { ...d, platform: 'Android' },
      { ...d, userAgent: d.userAgent.replace('Chrome/143.', 'Chrome/120.') },
      { ...d, userAgent: `${d.userAgent}\r\nX-Injected: 1` },
      { ...d, acceptLanguage: 'en-US\r\nX: 1' },
      { ...d, timezoneId: '../../etc' },
      { ...d, viewport: { width: 10, height: 900 } },
      { ...d, screen: { width: 1920 } },
    ]) {
      expect(parseDevice(broken)).toBeNull();
    }
  });

  it('lists the brands as Chrome does: its GREASE brand, Chromium and Google Chrome, ordered by the major version', () => {
    // What Chrome 143 sends, with "Google Chrome" where headless Chromium says "HeadlessChrome".
    expect(chromeBrands('143.0.7499.0')).toEqual([
      { brand: 'Google Chrome', version: '143' },
      { brand: 'Chromium', version: '143' },
      { brand: 'Not A(Brand', version: '24' },
    ]);
    expect(chromeBrands('143.0.7499.0', true)).toEqual([
      { brand: 'Google Chrome', version: '143.0.7499.0' },
      { brand: 'Chromium', version: '143.0.7499.0' },
      { brand: 'Not A(Brand', version: '24.0.0.0' },
    ]);
    // Chrome 131's published list: "Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24".
    expect(chromeBrands('131.0.6778.86').map((b) => `${b.brand};${b.version}`)).toEqual([
      'Google Chrome;131',
      'Chromium;131',
      'Not_A Brand;24',
    ]);
  });

  it('gives the client-hint headers of the device', () => {
    const d = { ...chooseDevice('conn_hints', '143.0.7499.0'), platform: 'macOS' as const };
    expect(clientHintHeaders(d)).toMatchObject({
      'sec-ch-ua': '"Google Chrome";v="143", "Chromium";v="143", "Not A(Brand";v="24"',
      'sec-ch-ua-mobile': '?0',
      'sec-ch-ua-platform': '"macOS"',
    });
  });
});
