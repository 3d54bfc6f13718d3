import { type DeviceProfile, majorVersion, PLATFORM_FACTS } from './device-profile';

/**
 * User-agent client hints (navigator.userAgentData, Sec-CH-UA-*) for a device. Headless Chromium names itself
 * "HeadlessChrome" there even when the user agent string is overridden, and Playwright's override sends no brands
 * at all, so both are written here: Google Chrome's brand list for the running version, built the way Chromium
 * builds it (user_agent_utils.cc, GetUserAgentBrandList: a GREASE brand whose characters, version and position all
 * follow from the major version), so it is exactly what a real Chrome of that version sends.
 */
const GREASE_CHARS = [' ', '(', ':', '-', '.', '/', ')', ';', '=', '?', '_'];
const GREASE_VERSIONS = ['8', '99', '24'];
const ORDERS = [
  [0, 1, 2],
  [0, 2, 1],
  [1, 0, 2],
  [1, 2, 0],
  [2, 0, 1],
  [2, 1, 0],
];

export interface Brand {
  brand: string;
  version: string;
}

/** Chrome's brand list: the major versions (`full: false`) or the full ones (Sec-CH-UA-Full-Version-List). */
export function chromeBrands(browserVersion: string, full = false): Brand[] {
  const major = Number(majorVersion(browserVersion));
  const grease = {
    brand: `Not${GREASE_CHARS[major % GREASE_CHARS.length]}A${GREASE_CHARS[(major + 1) % GREASE_CHARS.length]}Brand`,
    version: GREASE_VERSIONS[major % GREASE_VERSIONS.length],
  };
  const version = full ? browserVersion : String(major);
  const listed = [
    { ...grease, version: full ? `${grease.version}.0.0.0` : grease.version },
    { brand: 'Chromium', version },
    { brand: 'Google Chrome', version },
  ];
  const order = ORDERS[major % ORDERS.length];
  const out: Brand[] = [];
  order.forEach((slot, i) => (out[slot] = listed[i]));
  return out;
}

/** CDP's Emulation.UserAgentMetadata for the device. */
export function userAgentMetadata(device: DeviceProfile) {
  const facts = PLATFORM_FACTS[device.platform];
  return {
    brands: chromeBrands(device.browserVersion),
    fullVersionList: chromeBrands(device.browserVersion, true),
    fullVersion: device.browserVersion,
    platform: device.platform,
    platformVersion: facts.platformVersion,
    architecture: facts.architecture,
    model: '',
    mobile: false,
    bitness: facts.bitness,
    wow64: false,
  };
}

const brandList = (brands: Brand[]) => brands.map((b) => `"${b.brand}";v="${b.version}"`).join(', ');
const quoted = (v: string) => `"${v}"`;

/**
 * The value of each client-hint header for the device, as Chrome writes them. The egress proxy puts them in place of
 * what a request carries, and only where it carries one: which hints are sent is the browser's and the site's
 * business (Accept-CH), their values are the device's.
 */
export function clientHintHeaders(device: DeviceProfile): Record<string, string> {
  const facts = PLATFORM_FACTS[device.platform];
  return {
    'sec-ch-ua': brandList(chromeBrands(device.browserVersion)),
    'sec-ch-ua-mobile': '?0',
    'sec-ch-ua-platform': quoted(device.platform),
    'sec-ch-ua-platform-version': quoted(facts.platformVersion),
    'sec-ch-ua-arch': quoted(facts.architecture),
    'sec-ch-ua-bitness': quoted(facts.bitness),
    'sec-ch-ua-model': quoted(''),
    'sec-ch-ua-wow64': '?0',
    'sec-ch-ua-full-version': quoted(device.browserVersion),
    'sec-ch-ua-full-version-list': brandList(chromeBrands(device.browserVersion, true)),
  };
}
