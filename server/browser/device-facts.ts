import { userAgentMetadata } from './client-hints';
import { deviceLanguages, type DevicePlatform, type DeviceProfile, PLATFORM_FACTS } from './device-profile';
import { REALM_KEY } from './realm-key';

/** What a device's script (device.page.ts) is told: the values every realm of its contexts presents. */
export interface DeviceFacts {
  /** navigator.userAgent (set by the context's options everywhere but in service workers, which no override reaches). */
  userAgent: string;
  /**
   * Only in the prelude of a worker the page started from a blob: or data: URL of its own (device-workers.page.ts): that
   * URL, which the worker's location shows, as the browser's own would (it runs from a script of ours).
   */
  workerUrl?: string;
  /** navigator.platform. */
  platform: string;
  languages: string[];
  /** navigator.userAgentData: the low-entropy part and every high-entropy value. */
  uaData: {
    brands: { brand: string; version: string }[];
    fullVersionList: { brand: string; version: string }[];
    platform: string;
    platformVersion: string;
    architecture: string;
    bitness: string;
    model: string;
    uaFullVersion: string;
    wow64: boolean;
  };
  hardwareConcurrency: number;
  deviceMemory: number;
  gpu: { vendor: string; renderer: string };
  /** The browser frame around the page: outer size = inner size + this (a real window has one). */
  frame: { width: number; height: number; x: number; y: number };
  /** The part of the screen a taskbar or menu bar keeps (screen.availHeight = height − this). */
  taskbar: number;
  /** How much of it is at the top of the screen (screen.availTop): a Mac's menu bar, a Linux panel; Windows' is below. */
  taskbarTop: number;
  /** navigator.connection.rtt (and the RTT client hint): a person's browser has an estimate, a headless one says 0. */
  rtt: number;
  /**
   * The storage quota of the device's disk, as Chrome gives an origin of a normal profile (60 % of the disk): a context
   * of this shared browser is off the record, whose quota of a share of memory reads as private browsing.
   */
  storageQuota: number;
  /** Seeds the connection's canvas, audio and WebGL noise: the same connection draws the same pixels every time. */
  noiseSeed: number;
  /** A secret of the server process: the realms of a page find each other's toString masks by it (native-masks.page.ts). */
  realmKey: string;
  /** The egress proxy's prelude is `(` + this function's bundle + `)(` + these facts: how it begins, the bundle's length. */
  bundle?: { head: string; length: number };
}

/**
 * Everything a device's realms say of it beyond its profile, each a function of the device's seed: the same
 * connection reads the same cores, GPU and window everywhere and always; two connections read different ones.
 * The GPUs are real ones of each platform, with the renderer strings Chrome shows for them (ANGLE over the platform's
 * graphics API); the seed also moves the canvas, audio and WebGL pixels (device.page.ts).
 */
const GPUS: Record<DevicePlatform, { vendor: string; renderer: string }[]> = {
  Linux: [
    { vendor: 'Google Inc. (Intel)', renderer: 'ANGLE (Intel, Mesa Intel(R) UHD Graphics 620 (KBL GT2), OpenGL 4.6)' },
    { vendor: 'Google Inc. (Intel)', renderer: 'ANGLE (Intel, Mesa Intel(R) Xe Graphics (TGL GT2), OpenGL 4.6)' },
    { vendor: 'Google Inc. (Intel)', renderer: 'ANGLE (Intel, Mesa Intel(R) UHD Graphics 630 (CFL GT2), OpenGL 4.6)' },
    {
      vendor: 'Google Inc. (AMD)',
      renderer: 'ANGLE (AMD, AMD Radeon Graphics (radeonsi, renoir, LLVM 15.0.7, DRM 3.54, 6.5.0-35-generic), OpenGL 4.6)',
    },
    { vendor: 'Google Inc. (NVIDIA Corporation)', renderer: 'ANGLE (NVIDIA Corporation, NVIDIA GeForce GTX 1650/PCIe/SSE2, OpenGL 4.5.0)' },
  ],
  Windows: [
    { vendor: 'Google Inc. (Intel)', renderer: 'ANGLE (Intel, Intel(R) UHD Graphics 620 (0x00005917) Direct3D11 vs_5_0 ps_5_0, D3D11)' },
    { vendor: 'Google Inc. (NVIDIA)', renderer: 'ANGLE (NVIDIA, NVIDIA GeForce GTX 1650 (0x00001F82) Direct3D11 vs_5_0 ps_5_0, D3D11)' },
    { vendor: 'Google Inc. (AMD)', renderer: 'ANGLE (AMD, AMD Radeon(TM) Graphics (0x00001638) Direct3D11 vs_5_0 ps_5_0, D3D11)' },
  ],
  macOS: [
    { vendor: 'Google Inc. (Apple)', renderer: 'ANGLE (Apple, ANGLE Metal Renderer: Apple M1, Unspecified Version)' },
    { vendor: 'Google Inc. (Apple)', renderer: 'ANGLE (Apple, ANGLE Metal Renderer: Apple M2, Unspecified Version)' },
  ],
};

const CORES = [4, 8, 8, 12, 16];

/** Round-trip estimates as Chrome reports them on broadband (multiples of 25 ms, then 50 ms above). */
const RTTS = [50, 50, 100, 100, 150];

/** The window frame a real browser of the platform draws around the page (tabs, address bar, borders). */
const FRAMES: Record<DevicePlatform, { width: number; height: number }> = {
  Windows: { width: 16, height: 87 },
  macOS: { width: 0, height: 80 },
  Linux: { width: 0, height: 85 },
};

/** Disks as their makers size them (256 GB, 512 GB, 1 TB, 2 TB), in bytes: what a normal profile's quota is 60 % of. */
const DISKS = [256_060_514_304, 512_110_190_592, 1_024_209_543_168, 2_048_408_248_320];

/** What a taskbar, dock or panel keeps of the screen. */
const TASKBARS: Record<DevicePlatform, number> = { Windows: 48, macOS: 38, Linux: 27 };

/** Bits of a 32-bit seed, mixed so that each use draws independently of the others. */
function pick(seed: number, salt: number, n: number): number {
  let x = (seed ^ Math.imul(salt + 1, 0x9e3779b1)) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b) >>> 0;
  return ((x ^ (x >>> 16)) >>> 0) % n;
}

export function deviceFacts(device: DeviceProfile & { noiseSeed: number }): DeviceFacts {
  const seed = device.noiseSeed;
  const meta = userAgentMetadata(device);
  const gpus = GPUS[device.platform];
  const frame = FRAMES[device.platform];
  // A Mac's menu bar and a Linux desktop's panel are at the top: a window starts below them; Windows' taskbar is below.
  const taskbarTop = device.platform === 'Windows' ? 0 : TASKBARS[device.platform];
  const room = {
    x: Math.max(0, device.screen.width - device.viewport.width - frame.width),
    y: Math.max(0, device.screen.height - device.viewport.height - frame.height - TASKBARS[device.platform]),
  };
  return {
    realmKey: REALM_KEY,
    userAgent: device.userAgent,
    platform: PLATFORM_FACTS[device.platform].navigatorPlatform,
    languages: deviceLanguages(device),
    uaData: {
      brands: meta.brands,
      fullVersionList: meta.fullVersionList,
      platform: meta.platform,
      platformVersion: meta.platformVersion,
      architecture: meta.architecture,
      bitness: meta.bitness,
      model: meta.model,
      uaFullVersion: meta.fullVersion,
      wow64: meta.wow64,
    },
    hardwareConcurrency: CORES[pick(seed, 1, CORES.length)],
    deviceMemory: 8,
    gpu: gpus[pick(seed, 2, gpus.length)],
    frame: { ...frame, x: pick(seed, 3, room.x + 1), y: taskbarTop + pick(seed, 4, room.y + 1) },
    taskbar: TASKBARS[device.platform],
    taskbarTop,
    rtt: RTTS[pick(seed, 5, RTTS.length)],
    storageQuota: Math.floor(DISKS[pick(seed, 6, DISKS.length)]! * 0.6),
    noiseSeed: seed,
  };
}
