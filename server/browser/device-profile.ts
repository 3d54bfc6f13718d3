import { createHash } from 'node:crypto';

/**
 * One device per connection: the browser identity a provider sees at every run, check and re-login of that
 * connection (user agent, platform, languages, time zone, window). A new identity at each run reads as a sign-in
 * from a new device, which real sites challenge, lock or sign out; Anchor Browser, Browserbase contexts and
 * Hyperbrowser profiles keep one identity per profile for the same reason.
 *
 * The profile is not a secret (a site sees all of it), so it is stored in the clear and shown on the connection.
 * The user agent is always that of the Chromium actually running (browser.version()), in Chrome's reduced form
 * (`Chrome/143.0.0.0`): claiming another engine version is a mismatch any site can measure. When the browser is
 * upgraded, the same device simply reports the new version, as an auto-updating Chrome does.
 */
export const DEVICE_PLATFORMS = ['Windows', 'macOS', 'Linux'] as const;
export type DevicePlatform = (typeof DEVICE_PLATFORMS)[number];

export interface DeviceProfile {
  platform: DevicePlatform;
  /** Exactly the User-Agent header and navigator.userAgent. */
  userAgent: string;
  /** The Chromium version the user agent was built for (full, e.g. 143.0.7499.0). */
  browserVersion: string;
  /** BCP 47 locale (navigator.language, Intl). */
  locale: string;
  /** The Accept-Language header, as Chrome writes it for this language list (navigator.languages). */
  acceptLanguage: string;
  /** IANA time zone. */
  timezoneId: string;
  viewport: { width: number; height: number };
  screen: { width: number; height: number };
  /** window.devicePixelRatio (2 on a Mac's Retina screen, 1 on most desktop screens). */
  deviceScaleFactor?: number;
  /**
   * Seeds everything else the device has of its own (cores, GPU, window position; canvas, audio and WebGL noise), so
   * two connections on one host differ and one connection stays the same. Absent on devices stored before it existed:
   * deviceForBrowser gives them one from the connection.
   */
  noiseSeed?: number;
}

/** What each platform says of itself, in the user agent, navigator.platform and the client hints. */
export const PLATFORM_FACTS: Record<
  DevicePlatform,
  { uaOs: string; navigatorPlatform: string; platformVersion: string; architecture: string; bitness: string }
> = {
  Windows: {
    uaOs: 'Windows NT 10.0; Win64; x64',
    navigatorPlatform: 'Win32',
    platformVersion: '15.0.0',
    architecture: 'x86',
    bitness: '64',
  },
  // Chrome on macOS freezes the OS version in its user agent at 10_15_7, on Intel and Apple silicon alike.
  macOS: {
    uaOs: 'Macintosh; Intel Mac OS X 10_15_7',
    navigatorPlatform: 'MacIntel',
    platformVersion: '14.6.1',
    architecture: 'arm',
    bitness: '64',
  },
  Linux: { uaOs: 'X11; Linux x86_64', navigatorPlatform: 'Linux x86_64', platformVersion: '6.8.0', architecture: 'x86', bitness: '64' },
};

/** A desktop Chrome user agent for this platform and Chromium version, in Chrome's reduced form (minor parts zeroed). */
export function chromeUserAgent(platform: DevicePlatform, browserVersion: string): string {
  const major = majorVersion(browserVersion);
  return `Mozilla/5.0 (${PLATFORM_FACTS[platform].uaOs}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`;
}

export function majorVersion(browserVersion: string): string {
  const major = /^(\d{1,4})\./.exec(browserVersion)?.[1];
  if (!major) throw new Error(`not a Chromium version: ${browserVersion.slice(0, 40)}`);
  return major;
}

/**
 * The screens devices are drawn from: common desktop set-ups, each one consistent in itself (a Mac has a Mac's screen
 * and its Retina ratio). Windows are not maximised and at least 1280×800, the size the agent's pages and playbooks are
 * written for.
 */
const SCREENS: Record<DevicePlatform, { screen: [number, number]; viewports: [number, number][]; dpr: number }[]> = {
  Windows: [
    {
      screen: [1920, 1080],
      viewports: [
        [1366, 900],
        [1280, 880],
        [1536, 864],
      ],
      dpr: 1,
    },
    {
      screen: [2560, 1440],
      viewports: [
        [1440, 960],
        [1680, 1000],
        [1920, 1080],
      ],
      dpr: 1,
    },
  ],
  macOS: [
    {
      screen: [1512, 982],
      viewports: [
        [1440, 830],
        [1280, 800],
      ],
      dpr: 2,
    },
    {
      screen: [1728, 1117],
      viewports: [
        [1440, 900],
        [1600, 960],
      ],
      dpr: 2,
    },
  ],
  Linux: [
    {
      screen: [1920, 1080],
      viewports: [
        [1366, 900],
        [1280, 880],
        [1536, 920],
        [1600, 940],
        [1920, 990],
      ],
      dpr: 1,
    },
    {
      screen: [2560, 1440],
      viewports: [
        [1440, 960],
        [1680, 1000],
        [1920, 1200],
        [2560, 1350],
      ],
      dpr: 1,
    },
    {
      screen: [1920, 1200],
      viewports: [
        [1440, 960],
        [1680, 1050],
        [1920, 1110],
      ],
      dpr: 1,
    },
    {
      screen: [1920, 1080],
      viewports: [
        [1600, 940],
        [1920, 990],
      ],
      dpr: 2,
    }, // a 4K screen at 200 %
  ],
};

/**
 * The platform new devices claim: the host's own OS family. Its fonts, its GPU driver's behaviour and its rendering are
 * what the browser really shows, and no script can make a Linux machine render text like Windows: a Windows user agent
 * with Linux fonts is a contradiction every fingerprinting script reports. (Devices stored with another platform keep it.)
 */
export function hostPlatform(): DevicePlatform {
  return process.platform === 'win32' ? 'Windows' : process.platform === 'darwin' ? 'macOS' : 'Linux';
}

const REGIONS: { locale: string; acceptLanguage: string; timezoneId: string }[] = [
  { locale: 'en-US', acceptLanguage: 'en-US,en;q=0.9', timezoneId: 'America/New_York' },
  { locale: 'en-US', acceptLanguage: 'en-US,en;q=0.9', timezoneId: 'America/Chicago' },
  { locale: 'en-US', acceptLanguage: 'en-US,en;q=0.9', timezoneId: 'America/Los_Angeles' },
  { locale: 'en-GB', acceptLanguage: 'en-GB,en;q=0.9', timezoneId: 'Europe/London' },
  { locale: 'de-DE', acceptLanguage: 'de-DE,de;q=0.9,en;q=0.8', timezoneId: 'Europe/Berlin' },
  { locale: 'fr-FR', acceptLanguage: 'fr-FR,fr;q=0.9,en;q=0.8', timezoneId: 'Europe/Paris' },
];

/**
 * The device of a connection, drawn from the table by a hash of `seed` (the connection id): the same connection always
 * gets the same device, so two runs that both find none stored agree on it without coordinating.
 */
export function chooseDevice(seed: string, browserVersion: string, platform: DevicePlatform = hostPlatform()): DeviceProfile {
  const digest = createHash('sha256').update(`device:${seed}`).digest();
  const screens = SCREENS[platform];
  const hardware = screens[digest.readUInt32BE(0) % screens.length];
  const viewport = hardware.viewports[digest.readUInt32BE(12) % hardware.viewports.length];
  const region = REGIONS[digest.readUInt32BE(4) % REGIONS.length];
  return {
    platform,
    userAgent: chromeUserAgent(platform, browserVersion),
    browserVersion,
    locale: region.locale,
    acceptLanguage: region.acceptLanguage,
    timezoneId: region.timezoneId,
    viewport: { width: viewport[0], height: viewport[1] },
    screen: { width: hardware.screen[0], height: hardware.screen[1] },
    deviceScaleFactor: hardware.dpr,
    noiseSeed: digest.readUInt32BE(8),
  };
}

/** A seed for a device stored before devices had one: a function of the connection, so every run agrees on it. */
export function seedFor(seed: string): number {
  return createHash('sha256').update(`device-noise:${seed}`).digest().readUInt32BE(0);
}

/** The same device after a browser upgrade: only the version it reports changes (null when nothing does). */
export function upgradedDevice(device: DeviceProfile, browserVersion: string): DeviceProfile | null {
  if (device.browserVersion === browserVersion) return null;
  return { ...device, browserVersion, userAgent: chromeUserAgent(device.platform, browserVersion) };
}

/** navigator.languages of a device: its Accept-Language without the weights. */
export function deviceLanguages(device: Pick<DeviceProfile, 'acceptLanguage'>): string[] {
  return device.acceptLanguage.split(',').map((part) => part.split(';')[0].trim());
}

const isSize = (v: unknown, max: number): v is { width: number; height: number } => {
  const s = v as { width?: unknown; height?: unknown } | null;
  return (
    !!s &&
    Number.isInteger(s.width) &&
    Number.isInteger(s.height) &&
    (s.width as number) >= 320 &&
    (s.height as number) >= 320 &&
    (s.width as number) <= max &&
    (s.height as number) <= max
  );
};
const isText = (v: unknown, pattern: RegExp, max = 300): v is string => typeof v === 'string' && v.length <= max && pattern.test(v);

/**
 * A device as stored on a connection, checked before a browser is given it (a row edited by hand, or written by a
 * later version, must not reach Chromium half-valid). Null when it is not a device this version understands.
 */
export function parseDevice(value: unknown): DeviceProfile | null {
  const d = value as Record<string, unknown> | null;
  if (!d || typeof d !== 'object') return null;
  if (!DEVICE_PLATFORMS.includes(d.platform as DevicePlatform)) return null;
  if (!isText(d.browserVersion, /^\d{1,4}(\.\d{1,6}){1,3}$/, 40)) return null;
  // A header value: printable ASCII only.
  if (!isText(d.userAgent, /^[\x20-\x7e]{10,}$/) || !d.userAgent.includes(`Chrome/${majorVersion(d.browserVersion)}.`)) return null;
  if (!isText(d.locale, /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$/, 35)) return null;
  if (!isText(d.acceptLanguage, /^[A-Za-z0-9*-]+(;q=[01](\.\d{1,3})?)?(,[A-Za-z0-9*-]+(;q=[01](\.\d{1,3})?)?){0,9}$/, 200)) return null;
  if (!isText(d.timezoneId, /^[A-Za-z0-9_+-]+(\/[A-Za-z0-9_+-]+){0,2}$/, 64)) return null;
  if (!isSize(d.viewport, 4096) || !isSize(d.screen, 8192)) return null;
  if (d.deviceScaleFactor !== undefined && ![1, 1.25, 1.5, 2].includes(d.deviceScaleFactor as number)) return null;
  if (
    d.noiseSeed !== undefined &&
    !(Number.isInteger(d.noiseSeed) && (d.noiseSeed as number) >= 0 && (d.noiseSeed as number) <= 0xffffffff)
  )
    return null;
  return {
    platform: d.platform as DevicePlatform,
    userAgent: d.userAgent,
    browserVersion: d.browserVersion,
    locale: d.locale,
    acceptLanguage: d.acceptLanguage,
    timezoneId: d.timezoneId,
    viewport: { width: d.viewport.width, height: d.viewport.height },
    screen: { width: d.screen.width, height: d.screen.height },
    ...(d.deviceScaleFactor !== undefined ? { deviceScaleFactor: d.deviceScaleFactor as number } : {}),
    ...(d.noiseSeed !== undefined ? { noiseSeed: d.noiseSeed as number } : {}),
  };
}
