import type net from 'node:net';

import { RunIntegrity } from '../../server/agent/run/integrity';
import { changeGate, fromProxy } from '../../server/agent/run/network-guard';
import type { EgressBlock } from '../../server/egress/change-gate';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { type EgressProxy, startEgressProxy } from '../../server/egress/egress-proxy';
import { maskedFrame } from '../../server/egress/websocket-frames';
import { eventually } from '../agent/agent-support';
import { openProxiedSocket, type SocketSite, startSocketSite } from '../support/socket-site';

/**
 * A WebSocket message cut off by its socket closing, in read mode, attacked below the browser (as
 * egress-proxy-streams.security.test.ts does: a page's socket speaking raw frames through the real egress proxy to a
 * real WebSocket server). Read mode holds every message and reports each with what it carried, for the run to judge
 * (block-cause.ts); a message the page begins and never finishes — its parameter-carrying tail never sent, the socket
 * closed by the page or by the provider mid-frame — must be reported as unreadable, which taints the run like a
 * message over 64 KiB, rather than going unreported and leaving the run clean and recordable. Chromium's WebSocket API
 * writes whole frames, so a page cannot cut one at will today; a browser bug, a tab torn down mid-send or a server
 * closing at the right moment can, and the proxy must not depend on which.
 */
jest.setTimeout(20_000);

const SECRET = 'SECRET-NOTE-4471';
const received: string[] = [];
let site: SocketSite;
let port = 0;
/** Whether the site drops each socket 300 ms after the upgrade (the provider closing mid-message). */
let dropAfterUpgrade = false;
const proxies: EgressProxy[] = [];

beforeAll(async () => {
  site = await startSocketSite({
    received,
    handler: (_req, res) => res.writeHead(404).end(),
    onClient: (client) => {
      if (dropAfterUpgrade) setTimeout(() => client.terminate(), 300);
    },
  });
  port = site.port;
});

afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await site?.close();
});

beforeEach(() => {
  received.length = 0;
  dropAfterUpgrade = false;
});

/** A read-mode proxy whose every report is judged by a run that typed SECRET, as the worker's run does. */
async function readModeRun() {
  const policy = EgressPolicy.forProvider(
    { name: 'Notes', homeUrl: `http://notes.localhost:${port}/`, allowedOrigins: ['notes.localhost'] },
    'sandbox',
  );
  const integrity = new RunIntegrity({ note: SECRET });
  const reports: EgressBlock[] = [];
  const proxy = await startEgressProxy({
    policy,
    onBlocked: (b) => {
      reports.push(b);
      integrity.blockedRequest(fromProxy(b));
    },
    gate: changeGate('read'),
    onChangeSent: () => undefined,
  });
  proxies.push(proxy);
  // As the worker's run is judged (network-guard.ts judgeUnfinishedMessages): what its sockets left unfinished first.
  integrity.beforeJudging(() => proxy.reportUnfinishedMessages());
  return { integrity, reports, proxy, proxyPort: Number(new URL(proxy.server).port) };
}

const openSocket = (proxyPort: number) => openProxiedSocket(proxyPort, `notes.localhost:${port}`);

const closed = (socket: net.Socket) => new Promise((r) => (socket.destroyed ? r(undefined) : socket.once('close', r)));
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * Waits until the proxy has reported `n` messages: it reports each as it reads it, or as its socket ends, however long a
 * loaded machine takes (the settles after it are for what must not come).
 */
const reported = (run: { reports: EgressBlock[] }, n: number) =>
  eventually(
    async () => run.reports.length,
    (k) => k >= n,
  ).catch(() => undefined);

/** A message whose parameter sits in its tail: the part a cut-off frame never sends. */
const leak = maskedFrame(1, Buffer.from(`{"event":"autosave","pad":"${'x'.repeat(200)}","note":"${SECRET}"}`));
const headOfLeak = leak.subarray(0, 60);

describe('read mode: a WebSocket message cut off by its socket closing', () => {
  it('control: a whole message carrying nothing of the run is held and listed as noise; the run stays clean', async () => {
    const run = await readModeRun();
    const socket = await openSocket(run.proxyPort);
    socket.write(maskedFrame(1, Buffer.from('{"subscribe":"notes"}')));
    await reported(run, 1);
    await settle(300);
    socket.destroy();
    await settle(300);

    expect(received).toEqual([]);
    expect(run.reports.map((r) => [r.kind, r.message])).toEqual([['websocket', { text: '{"subscribe":"notes"}', cut: false }]]);
    expect(run.integrity.clean).toBe(true);
  });

  it('the page closes its socket mid-frame: the message is reported unreadable and taints the run', async () => {
    const run = await readModeRun();
    const socket = await openSocket(run.proxyPort);
    socket.write(maskedFrame(1, Buffer.from('{"subscribe":"notes"}')));
    socket.write(headOfLeak);
    await reported(run, 1);
    await settle(200);
    socket.destroy();
    await reported(run, 2);
    await settle(300);

    expect(received).toEqual([]);
    expect(run.reports.map((r) => r.message?.cut)).toEqual([false, true]);
    expect(run.reports[1]!.message!.text).not.toContain(SECRET);
    expect(run.integrity.clean).toBe(false);
    expect(run.integrity.summary()).toMatch(
      /#send: read mode: WebSocket messages are not sent \(its message could not be read whole .*cut off/,
    );
  });

  it('the page half-closes (FIN) between the fragments of a message: reported unreadable, taints', async () => {
    const run = await readModeRun();
    const socket = await openSocket(run.proxyPort);
    const first = maskedFrame(1, Buffer.from('{"event":"autosave",'));
    first[0] = 0x01; // FIN clear: the message goes on in a continuation that never comes.
    socket.end(first);
    // The page's side ended: nothing more can come, whether or not the socket is torn down yet.
    await reported(run, 1);
    await settle(500);

    expect(received).toEqual([]);
    expect(run.reports.map((r) => r.message?.cut)).toEqual([true]);
    expect(run.integrity.clean).toBe(false);
    socket.destroy();
  });

  it('the provider drops the connection while the page is mid-frame: reported unreadable, taints', async () => {
    dropAfterUpgrade = true;
    const run = await readModeRun();
    const socket = await openSocket(run.proxyPort);
    socket.write(headOfLeak);
    await closed(socket);
    await reported(run, 1);
    await settle(300);

    expect(received).toEqual([]);
    expect(run.reports.map((r) => r.message?.cut)).toEqual([true]);
    expect(run.integrity.clean).toBe(false);
  });
});

/**
 * The same attack without the close: the page begins a message and keeps its socket open, so that nothing ends the
 * message before the run is judged and recorded (the socket closes with the context, after). The run is judged with
 * what its sockets hold unfinished reported first (RunIntegrity.beforeJudging → EgressProxy.reportUnfinishedMessages):
 * the message counts as unreadable while the socket is still open, and the cut report stands whatever comes next.
 */
describe('read mode: a WebSocket message left unfinished on a socket kept open', () => {
  it('control: whole messages on a socket kept open leave the run clean; nothing unfinished is reported', async () => {
    const run = await readModeRun();
    const socket = await openSocket(run.proxyPort);
    socket.write(maskedFrame(1, Buffer.from('{"subscribe":"notes"}')));
    socket.write(maskedFrame(0x9, Buffer.from('p')));
    await reported(run, 1);
    await settle(300);

    expect(run.integrity.clean).toBe(true);
    expect(run.reports.map((r) => r.message?.cut)).toEqual([false]);
    expect(socket.destroyed).toBe(false);
    socket.destroy();
  });

  it('mid-frame, socket open: reported unreadable and tainting when the run is judged; its tail sent later changes nothing', async () => {
    const run = await readModeRun();
    const socket = await openSocket(run.proxyPort);
    socket.write(maskedFrame(1, Buffer.from('{"subscribe":"notes"}')));
    socket.write(headOfLeak);
    await reported(run, 1);
    await settle(300);
    expect(run.reports.map((r) => r.message?.cut)).toEqual([false]);

    // The run ends and is judged (recorded for replay or not) while the page still holds the socket open.
    expect(run.integrity.clean).toBe(false);
    expect(socket.destroyed).toBe(false);
    expect(run.reports.map((r) => r.message?.cut)).toEqual([false, true]);
    expect(run.integrity.summary()).toMatch(/#send: read mode: WebSocket messages are not sent \(its message could not be read whole/);

    // The page sends the rest, then a message of its own: the first stays reported as cut (never again as whole, never sent).
    socket.write(leak.subarray(headOfLeak.length));
    socket.write(maskedFrame(1, Buffer.from('{"ping":1}')));
    await reported(run, 3);
    await settle(300);
    run.proxy.reportUnfinishedMessages();
    socket.destroy();
    await settle(300);
    expect(received).toEqual([]);
    expect(run.reports.map((r) => [r.message?.cut, r.message?.text.includes(SECRET)])).toEqual([
      [false, false],
      [true, false],
      [false, false],
    ]);
  });

  it('a fragmented message without its last frame, and a header cut short, on two sockets kept open: each reported, once', async () => {
    const run = await readModeRun();
    const fragmented = await openSocket(run.proxyPort);
    const first = maskedFrame(1, Buffer.from('{"event":"autosave",'));
    first[0] = 0x01; // FIN clear: the message goes on in a continuation that does not come.
    fragmented.write(first);
    const headerOnly = await openSocket(run.proxyPort);
    headerOnly.write(leak.subarray(0, 3));
    await settle(300);
    expect(run.reports).toEqual([]);

    expect(run.integrity.clean).toBe(false);
    expect(run.integrity.taints).toHaveLength(1); // one URL, one taint; both reports below
    expect(run.reports.map((r) => r.message)).toEqual([
      { text: '{"event":"autosave",', cut: true },
      { text: '', cut: true },
    ]);
    // Judged again (the worker asks once more as it keeps or closes the context): nothing reported twice.
    expect(run.integrity.clean).toBe(false);
    fragmented.destroy();
    headerOnly.destroy();
    await settle(300);
    expect(run.reports).toHaveLength(2);
    expect(received).toEqual([]);
  });
});
