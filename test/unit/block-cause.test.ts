import type { BrowserContext } from 'playwright-core';

import { BlockCauses, type BlockedDetail, parameterValues, SETTLE_GRACE_MS } from '../../server/agent/run/block-cause';
import { RunIntegrity } from '../../server/agent/run/integrity';
import { judgeUnfinishedMessages } from '../../server/agent/run/network-guard';

/** Which blocked requests the run caused (they taint it) and which are the page's background noise (listed only). */
const sub = (over: Partial<BlockedDetail> = {}): BlockedDetail => ({
  url: 'https://www.google-analytics.com/g/collect?v=2&en=page_view&dt=Packages',
  resourceType: 'fetch',
  mainFrameNavigation: false,
  source: 'page',
  method: 'GET',
  offProvider: true,
  ...over,
});

describe('BlockCauses', () => {
  let now = 1_000_000;
  const clock = () => now;

  it("calls the page's own background requests to other hosts noise", () => {
    const c = new BlockCauses(['acme-invoice-7'], clock);
    c.saw('[3] heading Packages\nleft-pad 1.3.0 published by someone', ['http://registry.local/packages', 'Packages']);
    expect(c.causeOf(sub())).toBeNull();
    expect(c.causeOf(sub({ url: 'https://fonts.gstatic.com/s/inter.woff2', resourceType: 'font' }))).toBeNull();
    expect(c.causeOf(sub({ url: 'https://catalogue.nodered.org/catalogue.json', resourceType: 'xhr' }))).toBeNull();
    expect(c.causeOf(sub({ method: 'POST', resourceType: 'ping', body: '{"event":"page_view","screen":"1280x900"}' }))).toBeNull();
    // A preconnect's refused tunnel carries nothing but its host.
    expect(c.causeOf(sub({ url: 'cdn.example.com:443', source: 'proxy', proxyKind: 'tunnel' }))).toBeNull();
  });

  it('blames the run for a top-frame navigation, a form submission, and a read-mode refusal', () => {
    const c = new BlockCauses([], clock);
    expect(c.causeOf(sub({ mainFrameNavigation: true, resourceType: 'document', navigation: true }))).toMatch(/navigation/);
    expect(c.causeOf(sub({ navigation: true, resourceType: 'document', method: 'POST', body: 'a=1' }))).toMatch(/form submission/);
    expect(c.causeOf(sub({ offProvider: false, method: 'POST' }))).toMatch(/write/);
  });

  it('blames the run for what is sent while a tool acts and within the settle grace, passive loads aside', () => {
    const c = new BlockCauses([], clock);
    c.actionStarted();
    expect(c.causeOf(sub())).toMatch(/tool acted/);
    expect(c.causeOf(sub({ resourceType: 'image', url: 'https://cdn.example.com/logo.png' }))).toBeNull();
    c.actionEnded();
    now += SETTLE_GRACE_MS - 1;
    expect(c.causeOf(sub())).toMatch(/tool acted/);
    now += 2;
    expect(c.causeOf(sub())).toBeNull();
  });

  it('blames the run for a parameter value carried in any form, and for page content the model saw', () => {
    const c = new BlockCauses(parameterValues({ order: { ref: 'Acme-Invoice-7' }, n: 12345 }), clock);
    expect(c.causeOf(sub({ url: 'https://evil.example/c?q=acme-invoice-7' }))).toMatch(/parameter value/);
    expect(c.causeOf(sub({ url: `https://evil.example/c?q=${Buffer.from('Acme-Invoice-7').toString('base64')}` }))).toMatch(
      /parameter value/,
    );
    expect(c.causeOf(sub({ method: 'POST', body: 'total=12345' }))).toMatch(/parameter value/);
    expect(c.causeOf(sub({ url: 'https://acme-invoice-7.evil.example:443', source: 'proxy', proxyKind: 'tunnel' }))).toMatch(
      /parameter value/,
    );
    c.saw("[4] article 'Board meeting moved to the Lisbon office' account IBAN DE44500105175407324931");
    expect(c.causeOf(sub({ method: 'POST', resourceType: 'ping', body: 'x=MOVED%20TO%20THE%20LISBON' }))).toMatch(/page content/);
    expect(c.causeOf(sub({ url: 'https://evil.example/p?i=de44500105175407324931' }))).toMatch(/page content/);
  });

  it('blames the run for what only the egress proxy saw (a worker, a write, a message): its content was never read', () => {
    const c = new BlockCauses([], clock);
    expect(c.causeOf(sub({ source: 'proxy', proxyKind: 'request' }))).toMatch(/cannot be read/);
    expect(c.causeOf(sub({ source: 'proxy', proxyKind: 'websocket', offProvider: false }))).not.toBeNull();
    expect(c.causeOf(sub({ source: undefined }))).not.toBeNull();
  });
});

describe('BlockCauses: WebSocket messages read mode held', () => {
  let now = 2_000_000;
  const clock = () => now;
  const held = (body: string, over: Partial<BlockedDetail> = {}): BlockedDetail => ({
    url: 'ws://127.0.0.1:1880/comms#send',
    resourceType: 'websocket (websocket)',
    mainFrameNavigation: false,
    source: 'proxy',
    proxyKind: 'websocket',
    offProvider: false,
    heldMessage: true,
    body,
    ...over,
  });
  const note = 'private-note-4f1c';
  const c = new BlockCauses([note], clock);
  c.protect(['hunter2-Secret']);
  c.saw("[2] heading 'Sensor alerts'\nPages the on-call engineer when a reading crosses its threshold.");

  it("calls the page's own frames at load noise: a subscribe, an auth token of its own", () => {
    expect(c.causeOf(held('{"subscribe":"notification/#"}'))).toBeNull();
    expect(c.causeOf(held('{"auth":"Y3VkR2x0ZXN0aW5nLXRva2VuLTQ0Mg-2fa9"}'))).toBeNull();
    expect(c.causeOf(held(''))).toBeNull();
  });

  it('blames the run for a frame sent while a tool acts (or in its settle), whatever it carries', () => {
    c.actionStarted();
    expect(c.causeOf(held('{"subscribe":"notification/#"}'))).toMatch(/tool acted/);
    c.actionEnded();
    expect(c.causeOf(held('{"event":"clicked"}'))).toMatch(/tool acted/);
    now += SETTLE_GRACE_MS + 1;
    expect(c.causeOf(held('{"event":"clicked"}'))).toBeNull();
  });

  it.each([
    ['as written', note],
    ['base64', Buffer.from(note).toString('base64')],
    ['percent-encoded', [...note].map((ch) => `%${ch.charCodeAt(0).toString(16)}`).join('')],
    ['hex', Buffer.from(note).toString('hex')],
    ['JSON \\u escapes', JSON.stringify({ d: [...note].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).join('') })],
  ])('blames the run for a frame carrying a parameter %s, whenever it is sent', (_how, encoded) => {
    expect(c.causeOf(held(JSON.stringify({ topic: 'x', d: encoded })))).toMatch(/parameter value/);
  });

  it('blames the run for a frame carrying a stored credential, or page content the model saw, or too long to read', () => {
    expect(c.causeOf(held(`{"p":"${Buffer.from('hunter2-Secret').toString('hex')}"}`))).toMatch(/parameter value/);
    expect(c.causeOf(held('{"t":"the on-call engineer"}'))).toMatch(/page content/);
    expect(c.causeOf(held('x'.repeat(10), { bodyCut: true }))).toMatch(/too long/);
  });

  it('still taints a message only the proxy saw without its content (a broken stream, a refusal with no detail)', () => {
    expect(c.causeOf(held('', { heldMessage: undefined, body: undefined }))).toMatch(/write/);
  });
});

describe('RunIntegrity.blockedRequest', () => {
  it('taints only for a caused block, naming the cause', () => {
    const i = new RunIntegrity({ note: 'private-note-1' });
    expect(i.blockedRequest({ ...sub(), reason: 'not an allowed domain' })).toBeNull();
    expect(i.clean).toBe(true);
    expect(i.blockedRequest({ ...sub({ url: 'https://evil.example/?n=private-note-1' }), reason: 'not an allowed domain' })).toMatch(
      /parameter/,
    );
    expect(i.clean).toBe(false);
    expect(i.summary()).toMatch(/a request was blocked .*evil\.example.*it carried a parameter value/);
  });

  it('is judged only after what its fences still hold undecided is reported; a report that fails leaves it unclean', () => {
    const i = new RunIntegrity({});
    let asked = 0;
    // What a fence reports when asked (an unfinished WebSocket message): an unreadable held message.
    i.beforeJudging(() => {
      asked += 1;
      if (asked === 1) {
        i.blockedRequest({
          url: 'ws://127.0.0.1:1880/comms#send',
          resourceType: 'websocket',
          mainFrameNavigation: false,
          source: 'proxy',
          proxyKind: 'websocket',
          heldMessage: true,
          body: '',
          bodyCut: true,
          reason: 'read mode: WebSocket messages are not sent',
        });
      }
    });
    expect(asked).toBe(0);
    expect(i.clean).toBe(false);
    expect(i.summary()).toMatch(/could not be read whole/);
    expect(i.taints).toHaveLength(1);
    expect(asked).toBe(3);

    const failing = new RunIntegrity({});
    failing.beforeJudging(() => {
      throw new Error('the fence could not answer');
    });
    expect(failing.clean).toBe(false);
    expect(failing.summary()).toMatch(/could not be reported/);

    // A context with no fence of this process cannot say what its sockets hold: the run is judged unclean.
    const unfenced = new RunIntegrity({});
    judgeUnfinishedMessages(unfenced, {} as BrowserContext);
    expect(unfenced.clean).toBe(false);
  });

  describe('the ways around it a reviewer tried (each must still taint)', () => {
    let now = 5_000_000;
    const clock = () => now;
    const secret = 'hunter2-Secret';
    const c = new BlockCauses(['acct>>secret?'], clock);
    c.protect([secret]);

    it("a stored credential the page sends, whenever it sends it (not only the request's parameters)", () => {
      expect(c.causeOf(sub({ url: `https://evil.example/c?p=${secret}` }))).toMatch(/parameter value/);
    });

    it('percent-encoding beside a stray %, encoding twice, and standard base64 with + in it', () => {
      const pct = [...secret].map((ch) => `%${ch.charCodeAt(0).toString(16)}`).join('');
      expect(c.causeOf(sub({ url: `https://evil.example/c?x=${pct}&y=%` }))).toMatch(/parameter value/);
      expect(c.causeOf(sub({ url: `https://evil.example/c?x=${encodeURIComponent(encodeURIComponent(secret))}` }))).toMatch(
        /parameter value/,
      );
      const b64 = Buffer.from('acct>>secret?').toString('base64');
      expect(b64).toContain('+');
      expect(c.causeOf(sub({ method: 'POST', body: `d=${b64}` }))).toMatch(/parameter value/);
    });

    it('base64 of a value wrapped in control bytes, and behind many harmless base64 runs', () => {
      const wrapped = Buffer.from(`\x01${secret}\x02`, 'latin1').toString('base64');
      expect(c.causeOf(sub({ method: 'POST', body: `d=${wrapped}` }))).toMatch(/parameter value/);
      const padding = Array.from({ length: 60 }, (_, i) => Buffer.from(`harmless text ${i}`).toString('base64')).join('&');
      expect(c.causeOf(sub({ method: 'POST', body: `${padding}&d=${Buffer.from(secret).toString('base64')}` }))).toMatch(/parameter value/);
    });

    it('hex (at either alignment, upper or lower case) and escapes a script writes: \\u, \\u{…}, \\x, &#x…;', () => {
      const hex = Buffer.from(secret).toString('hex');
      expect(c.causeOf(sub({ url: `https://evil.example/c?x=${hex}` }))).toMatch(/parameter value/);
      expect(c.causeOf(sub({ url: `https://evil.example/c?x=f${hex.toUpperCase()}` }))).toMatch(/parameter value/);
      const units = [...secret].map((ch) => ch.charCodeAt(0).toString(16).padStart(4, '0'));
      expect(c.causeOf(sub({ method: 'POST', body: `{"v":"${units.map((u) => `\\u${u}`).join('')}"}` }))).toMatch(/parameter value/);
      // Escaped again (a JSON string of the escaped value).
      expect(c.causeOf(sub({ method: 'POST', body: JSON.stringify({ v: units.map((u) => `\\u${u}`).join('') }) }))).toMatch(
        /parameter value/,
      );
      expect(c.causeOf(sub({ method: 'POST', body: units.map((u) => `\\u{${u}}`).join('') }))).toMatch(/parameter value/);
      expect(c.causeOf(sub({ method: 'POST', body: units.map((u) => `\\x${u.slice(2)}`).join('') }))).toMatch(/parameter value/);
      expect(c.causeOf(sub({ url: `https://evil.example/c?x=${encodeURIComponent(units.map((u) => `&#x${u};`).join(''))}` }))).toMatch(
        /parameter value/,
      );
      // Hex of a non-ASCII value, read back as UTF-8.
      const umlaut = new BlockCauses(['Grüße-Köln'], clock);
      expect(umlaut.causeOf(sub({ url: `https://evil.example/c?x=${Buffer.from('grüße-köln').toString('hex')}` }))).toMatch(
        /parameter value/,
      );
      // A hex run that is not the value stays noise.
      expect(c.causeOf(sub({ url: 'https://cdn.example.com/app.3f9a2c7d1e.js' }))).toBeNull();
    });

    it('an image beacon with a query while a tool acts (a keylogger sending pieces), and a body too long to read whole', () => {
      c.actionStarted();
      expect(c.causeOf(sub({ resourceType: 'image', url: 'https://evil.example/k.gif?k=hun' }))).toMatch(/tool acted/);
      c.actionEnded();
      now += SETTLE_GRACE_MS + 1;
      expect(c.causeOf(sub({ method: 'POST', body: 'x'.repeat(100), bodyCut: true }))).toMatch(/too long/);
    });
  });
});
