import { deviceForBrowser, seededDevice } from '../../server/browser/device-identity';
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
