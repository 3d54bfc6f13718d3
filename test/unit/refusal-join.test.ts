import { BlockCauses } from '../../server/agent/run/block-cause';
import { type BlockedRequest, fromProxy } from '../../server/agent/run/network-guard';
import { RefusalJoin } from '../../server/agent/run/refusal-join';

/**
 * The egress proxy refuses; the page's view of the same request (watchRefusals) says what it was. refusal-join.ts lists
 * each refusal once, with the page's detail when the page saw it, whichever of the two is told first.
 */
const page = (url: string, more: Partial<BlockedRequest> = {}): BlockedRequest => ({
  url,
  resourceType: 'image',
  mainFrameNavigation: false,
  reason: 'not allowed',
  source: 'page',
  method: 'GET',
  offProvider: true,
  ...more,
});

function rig(opts: { joinWrites?: boolean; acting?: boolean } = {}) {
  jest.useFakeTimers();
  const told: BlockedRequest[] = [];
  const state = { acting: opts.acting ?? false };
  const join = new RefusalJoin({
    emit: (b) => told.push(b),
    acting: () => state.acting,
    joinWrites: opts.joinWrites ?? false,
    now: () => Date.now(), // the fake clock
  });
  return { join, told, state };
}

afterEach(() => jest.useRealTimers());

describe('RefusalJoin', () => {
  it("drops the proxy's report of a request the page already told, by URL (a plain request) and by host:port (a tunnel)", () => {
    const { join, told } = rig();
    join.page(page('http://ads.example/pixel.gif?x=1#top'));
    join.proxy(fromProxy({ url: 'http://ads.example/pixel.gif?x=1', kind: 'request', reason: 'not allowed', method: 'GET' }));
    join.page(page('https://cdn.example/font.woff2'));
    join.proxy(fromProxy({ url: 'cdn.example:443', kind: 'tunnel', reason: 'not allowed' }));
    jest.advanceTimersByTime(5_000);
    expect(told.map((b) => [b.source, b.url])).toEqual([
      ['page', 'http://ads.example/pixel.gif?x=1#top'],
      ['page', 'https://cdn.example/font.woff2'],
    ]);
  });

  it('holds a proxy report the page has not told yet, and drops it when the page tells it', () => {
    const { join, told } = rig();
    join.proxy(fromProxy({ url: 'ads.example:443', kind: 'tunnel', reason: 'not allowed' }));
    jest.advanceTimersByTime(500);
    expect(told).toEqual([]);
    join.page(page('https://ads.example/beacon', { resourceType: 'ping', method: 'POST', body: 'q=1' }));
    jest.advanceTimersByTime(5_000);
    expect(told.map((b) => [b.source, b.resourceType])).toEqual([['page', 'ping']]);
  });

  it('tells a proxy report no page saw after the wait, judged by what a tool was doing when the proxy saw it', () => {
    const { join, told, state } = rig({ acting: true });
    join.proxy(fromProxy({ url: 'tracker.example:443', kind: 'tunnel', reason: 'not allowed' }));
    state.acting = false;
    jest.advanceTimersByTime(999);
    expect(told).toEqual([]);
    jest.advanceTimersByTime(2);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ source: 'proxy', proxyKind: 'tunnel', inAction: true });
    // The verdict reads the kept moment, not the moment it is told: a tunnel opened while a tool acted taints.
    expect(new BlockCauses().causeOf(told[0]!)).toBe('sent while a tool acted');
    expect(new BlockCauses().causeOf({ ...told[0]!, inAction: false })).toBeNull();
  });

  it('tells every held proxy report at flush (before the run is judged), without waiting', () => {
    const { join, told } = rig();
    join.proxy(fromProxy({ url: 'http://a.example/x', kind: 'request', reason: 'not allowed', method: 'GET' }));
    join.proxy(fromProxy({ url: 'b.example:443', kind: 'tunnel', reason: 'not allowed' }));
    join.flush();
    expect(told.map((b) => b.url)).toEqual(['http://a.example/x', 'b.example:443']);
    jest.advanceTimersByTime(5_000);
    expect(told).toHaveLength(2);
  });

  it('tells at once what no page can see: a held WebSocket message, an upstream failure, a refused write outside read mode', () => {
    const { join, told } = rig();
    join.proxy(fromProxy({ url: 'wss://site.example/live', kind: 'websocket', reason: 'read mode', message: { text: 'hi', cut: false } }));
    join.proxy(fromProxy({ url: 'http://site.example/', kind: 'upstream', reason: 'exit refused' }));
    join.proxy(fromProxy({ url: 'POST https://site.example/api', kind: 'write', reason: 'declined by the user' }));
    expect(told.map((b) => b.proxyKind)).toEqual(['websocket', 'upstream', 'write']);
  });

  it("joins a read-mode write the page saw with the proxy's report of it (same method and URL), and nothing else", () => {
    const { join, told } = rig({ joinWrites: true });
    join.page(page('https://site.example/api/like', { resourceType: 'fetch', method: 'POST', offProvider: false, reason: 'read mode' }));
    join.proxy(fromProxy({ url: 'POST https://site.example/api/like', kind: 'write', reason: 'read mode', realm: 'page' }));
    join.proxy(fromProxy({ url: 'DELETE https://site.example/api/like', kind: 'write', reason: 'read mode', realm: 'worker' }));
    jest.advanceTimersByTime(5_000);
    expect(told.map((b) => [b.source, b.url])).toEqual([
      ['page', 'https://site.example/api/like'],
      ['proxy', 'DELETE https://site.example/api/like'],
    ]);
  });

  it("explains a refused tunnel and a preconnect's, never a third to the same host (another realm's)", () => {
    const { join, told } = rig();
    join.page(page('https://ads.example/pixel.gif'));
    for (let i = 0; i < 3; i++) join.proxy(fromProxy({ url: 'ads.example:443', kind: 'tunnel', reason: 'not allowed' }));
    jest.advanceTimersByTime(1_001);
    expect(told.map((b) => b.source)).toEqual(['page', 'proxy']);
  });

  it("explains Chromium's retries of a refused request (the same method and URL, sent again on another connection)", () => {
    const { join, told } = rig();
    join.page(page('http://ads.example/collect', { method: 'POST', resourceType: 'fetch', body: 'a=1' }));
    for (let i = 0; i < 4; i++)
      join.proxy(fromProxy({ url: 'http://ads.example/collect', kind: 'request', reason: 'not allowed', method: 'POST' }));
    jest.advanceTimersByTime(1_001);
    expect(told.map((b) => b.source)).toEqual(['page']);
  });

  it('keeps a GET image from explaining a POST to the same URL (the method is part of the match)', () => {
    const { join, told } = rig();
    join.page(page('http://ads.example/collect'));
    join.proxy(fromProxy({ url: 'http://ads.example/collect', kind: 'request', reason: 'not allowed', method: 'POST' }));
    jest.advanceTimersByTime(1_001);
    expect(told.map((b) => [b.source, b.method])).toEqual([
      ['page', 'GET'],
      ['proxy', 'POST'],
    ]);
  });

  it('judges a joined request again as sent while a tool acted when the proxy saw it then and the page did not', () => {
    const { join, told, state } = rig();
    state.acting = true;
    join.proxy(fromProxy({ url: 'cdn.example:443', kind: 'tunnel', reason: 'not allowed' }));
    state.acting = false;
    join.page(page('https://cdn.example/lib.js', { resourceType: 'script' }));
    expect(told.map((b) => [b.source, b.inAction])).toEqual([
      ['page', undefined],
      ['page', true],
    ]);
  });

  it("lets a redirect hop the page saw explain nothing: the proxy's report of it is judged on its own", () => {
    const { join, told } = rig();
    join.page(page('http://evil.example/landing', { reason: 'redirect: not allowed', navigation: true }));
    join.proxy(fromProxy({ url: 'http://evil.example/landing', kind: 'request', reason: 'not allowed', method: 'GET' }));
    jest.advanceTimersByTime(1_001);
    expect(told.map((b) => b.source)).toEqual(['page', 'proxy']);
  });

  it("does not let an old page report explain a later refusal to the same place (a worker's, seconds after)", () => {
    const { join, told } = rig();
    join.page(page('https://ads.example/a.js', { resourceType: 'script' }));
    jest.advanceTimersByTime(3_000);
    join.proxy(fromProxy({ url: 'ads.example:443', kind: 'tunnel', reason: 'not allowed' }));
    jest.advanceTimersByTime(1_001);
    expect(told.map((b) => b.source)).toEqual(['page', 'proxy']);
  });
});
