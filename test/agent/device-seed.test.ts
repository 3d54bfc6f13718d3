import { deviceFacts } from '../../server/browser/device-facts';
import { deviceForBrowser, deviceIdentity, seededDevice } from '../../server/browser/device-identity';
import { chooseDevice, hostPlatform, parseDevice } from '../../server/browser/device-profile';

/**
 * A connection's device is one device wherever it is presented: a device stored before devices had a seed gets the
 * one its connection gives, the same in a run (deviceForBrowser) and an update-mode sign-in (seededDevice); new
 * devices claim the host's OS family; two connections draw different seeds.
 */
const VERSION = '143.0.7499.0';

it('seeds a stored device without a seed from its connection, the same way for a run and for a sign-in', async () => {
  const { noiseSeed, ...legacy } = chooseDevice('conn-1', VERSION);
  expect(noiseSeed).toEqual(expect.any(Number));
  const forRun = await deviceForBrowser({ browserVersion: async () => VERSION }, legacy, 'conn-1');
  const forSignIn = seededDevice(legacy, 'conn-1');
  expect(forRun?.noiseSeed).toEqual(expect.any(Number));
  expect(forSignIn?.noiseSeed).toBe(forRun?.noiseSeed);
  // A seeded device keeps its seed; it survives the store's check.
  expect(seededDevice(forRun, 'another')).toBe(forRun);
  expect(parseDevice(JSON.parse(JSON.stringify(forRun)))).toEqual(forRun);
});

it('draws new devices of the host’s OS family, with a distinct seed per connection', () => {
  const seeds = new Set<number>();
  for (let i = 0; i < 200; i++) {
    const device = chooseDevice(`conn-${i}`, VERSION);
    expect(device.platform).toBe(hostPlatform());
    seeds.add(device.noiseSeed!);
  }
  expect(seeds.size).toBe(200);
});

it('rewrites what every request says of the browser into the device’s words, its network estimate included', () => {
  const device = { ...chooseDevice('conn-headers', VERSION), locale: 'de-DE', acceptLanguage: 'de-DE,de;q=0.9,en;q=0.8' };
  const { rewriteHeaders } = deviceIdentity(device);
  const headers: Record<string, string> = {
    'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome/143.0.0.0',
    'sec-ch-ua': '"HeadlessChrome";v="143"',
    'accept-language': 'de-DE',
    rtt: '0', // a headless browser has no estimate; a site that asked for the RTT hint gets the device's
  };
  rewriteHeaders!(headers);
  expect(headers['user-agent']).toBe(device.userAgent);
  expect(headers['sec-ch-ua']).not.toMatch(/Headless/);
  expect(headers['accept-language']).toBe(device.acceptLanguage);
  expect(Number(headers.rtt)).toBeGreaterThan(0);
  expect(headers.rtt).toBe(String(deviceFacts({ ...device, noiseSeed: device.noiseSeed! }).rtt));
  // A real estimate and a language list the page chose are left as they are.
  const own = { rtt: '250', 'accept-language': 'fr' };
  rewriteHeaders!(own);
  expect(own).toEqual({ rtt: '250', 'accept-language': 'fr' });
});
