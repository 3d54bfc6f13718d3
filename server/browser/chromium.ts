import fs from 'node:fs';

import type { Browser, LaunchOptions } from 'playwright-core';

import { interceptionAuthority } from '../egress/interception-authority';
import { registerRefEngine } from './element-ref-engine';

/**
 * Finding and starting Chromium. Resolution order: an explicit path (AGENTLINK_CHROMIUM_PATH, passed in
 * by the caller from config), a system Chromium/Chrome, then the binary shipped in @sparticuz/chromium.
 * We always pass our own arguments: @sparticuz's defaults include --single-process and
 * --disable-web-security, which we never want.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // navigator.webdriver false, as in a browser a person drives: Blink sets it under automation while this feature is on.
  '--disable-blink-features=AutomationControlled',
  '--disable-default-apps',
  // WebRTC may send UDP (STUN/TURN) around the HTTP proxy that fences a context: only proxied traffic is allowed.
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
];

/**
 * Chromium's shared memory (frames, tiles, IPC buffers) lives in /dev/shm unless told otherwise. Containers give
 * /dev/shm 64 MB, where Chromium crashes, so the usual advice (and Playwright's default argument) is
 * `--disable-dev-shm-usage`: shared memory in files of the temp folder, on disk. Where /dev/shm has room, as on a
 * host or a container given `shm_size`, that flag only costs: measured on a playbook test file, about 4 % of its
 * CPU goes to creating and deleting those files (ext4 inode work). So it is passed only where /dev/shm is small.
 */
const SHM_ENOUGH_BYTES = 512 * 1024 * 1024;

export function devShmIsRoomy(): boolean {
  try {
    const fsStats = fs.statfsSync('/dev/shm');
    return fsStats.bavail * fsStats.bsize >= SHM_ENOUGH_BYTES;
  } catch {
    return false; // no /dev/shm (or not readable): files in the temp folder, as Playwright does by default
  }
}

/** The flags that differ by host: Playwright's own default for shared memory, dropped where /dev/shm has room. */
export function sharedMemoryLaunchOptions(roomy = devShmIsRoomy()): { ignoreDefaultArgs?: string[]; args: string[] } {
  return roomy ? { ignoreDefaultArgs: ['--disable-dev-shm-usage'], args: [] } : { args: ['--disable-dev-shm-usage'] };
}

const SYSTEM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

export async function resolveChromiumPath(explicit?: string): Promise<string> {
  if (explicit) {
    if (!fs.existsSync(explicit)) throw new Error(`Chromium not found at ${explicit} (AGENTLINK_CHROMIUM_PATH)`);
    return explicit;
  }
  for (const candidate of SYSTEM_CANDIDATES) if (fs.existsSync(candidate)) return candidate;
  // Loaded lazily: decompressing the bundled binary takes a second and is only needed when nothing else exists.
  const mod = (await import('@sparticuz/chromium')) as unknown as { default: { executablePath(): Promise<string> } };
  return mod.default.executablePath();
}

export interface BrowserOptions {
  /** Path to a Chromium binary (AGENTLINK_CHROMIUM_PATH). */
  executablePath?: string;
  /** A remote browser over CDP (BROWSER_WS_ENDPOINT), for fleets. */
  wsEndpoint?: string;
  headless?: boolean;
  /** Extra roots for upstream certificates (AGENTLINK_UPSTREAM_CA_FILE), checked by the egress proxies. */
  upstreamCa?: string[];
}

/**
 * Playwright, loaded when a browser is first launched or connected: it takes a good part of a second to load, which
 * every process (and every test file) that never opens a browser paid.
 */
async function playwright() {
  return (await import('playwright-core')).chromium;
}

export async function launchBrowser(opts: BrowserOptions = {}): Promise<Browser> {
  // The agent finds what it observed through this engine, never through marks on the page (element-ref-engine.ts).
  await registerRefEngine();
  if (opts.wsEndpoint) return connectRemote(opts.wsEndpoint);
  // The egress proxies open TLS tunnels with this process's CA: this browser, and nothing else, accepts its chains.
  const { spkiHash } = await interceptionAuthority();
  const shm = sharedMemoryLaunchOptions();
  const launch: LaunchOptions = {
    executablePath: await resolveChromiumPath(opts.executablePath),
    headless: opts.headless ?? true,
    ...(shm.ignoreDefaultArgs ? { ignoreDefaultArgs: shm.ignoreDefaultArgs } : {}),
    args: [...CHROMIUM_ARGS, ...shm.args, `--ignore-certificate-errors-spki-list=${spkiHash}`],
  };
  const chromium = await playwright();
  try {
    return await chromium.launch(launch);
  } catch (err) {
    // A Chromium that dies while it starts (seen: SIGSEGV before its first DevTools answer, once in hundreds of launches
    // on a loaded machine) is started once more; a second failure, or any other (a missing binary, bad flags), is the
    // caller's.
    if (!/process did exit|has been closed/.test(String((err as Error)?.message))) throw err;
    return chromium.launch(launch);
  }
}

/**
 * A browser this process did not launch is used only when it keeps WebRTC's UDP behind the proxy (it was started with
 * `--force-webrtc-ip-handling-policy=disable_non_proxied_udp`, as CHROMIUM_ARGS has it): otherwise a page could send
 * STUN/TURN packets, which no HTTP proxy sees, to any address. Probed once per connection: an offer with a data
 * channel and no ICE servers gathers host candidates over UDP only where that flag is missing.
 */
async function connectRemote(wsEndpoint: string): Promise<Browser> {
  const browser = await (await playwright()).connectOverCDP(wsEndpoint);
  try {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const candidates = await page.evaluate(async () => {
        const pc = new RTCPeerConnection({ iceServers: [] });
        const found: string[] = [];
        pc.onicecandidate = (e) => {
          if (e.candidate) found.push(e.candidate.candidate);
        };
        pc.createDataChannel('probe');
        await pc.setLocalDescription(await pc.createOffer());
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 2000);
          pc.onicegatheringstatechange = () => {
            if (pc.iceGatheringState === 'complete') {
              clearTimeout(timer);
              resolve();
            }
          };
        });
        pc.close();
        return found;
      });
      if (candidates.some((c) => /\budp\b/i.test(c))) {
        throw new Error(
          'the remote browser sends WebRTC UDP around the egress proxy: start it with --force-webrtc-ip-handling-policy=disable_non_proxied_udp (see CHROMIUM_ARGS)',
        );
      }
    } finally {
      await context.close().catch(() => undefined);
    }
  } catch (err) {
    await browser.close().catch(() => undefined);
    throw err;
  }
  return browser;
}
