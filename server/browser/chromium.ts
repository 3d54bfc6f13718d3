import fs from 'node:fs';

import { type Browser, chromium, type LaunchOptions } from 'playwright-core';

import { interceptionAuthority } from '../egress/interception-authority';

/**
 * Finding and starting Chromium. Resolution order: an explicit path (AGENTLINK_CHROMIUM_PATH, passed in
 * by the caller from config), a system Chromium/Chrome, then the binary shipped in @sparticuz/chromium.
 * We always pass our own arguments: @sparticuz's defaults include --single-process and
 * --disable-web-security, which we never want.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  // WebRTC may send UDP (STUN/TURN) around the HTTP proxy that fences a context: only proxied traffic is allowed.
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
];

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

export async function launchBrowser(opts: BrowserOptions = {}): Promise<Browser> {
  if (opts.wsEndpoint) return chromium.connectOverCDP(opts.wsEndpoint);
  // The egress proxies open TLS tunnels with this process's CA: this browser, and nothing else, accepts its chains.
  const { spkiHash } = await interceptionAuthority();
  const launch: LaunchOptions = {
    executablePath: await resolveChromiumPath(opts.executablePath),
    headless: opts.headless ?? true,
    args: [...CHROMIUM_ARGS, `--ignore-certificate-errors-spki-list=${spkiHash}`],
  };
  return chromium.launch(launch);
}
