import { randomBytes } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';

import { ClientFrameFilter, type ClientMessage, ClientMessageReader, maskedFrame } from '../../server/egress/websocket-frames';

/**
 * Reading a page's WebSocket messages whole, so each can be held for approval: whatever way the bytes arrive (one at a
 * time, several frames in one chunk, a message in fragments with a ping between them), the reader gives back exactly
 * the messages the page sent; framing it cannot follow, and messages over its bound, stop it before it buffers them.
 */
const LIMIT = 1024;

function frame(opcode: number, payload: Buffer | string, fin = true, rsv = 0): Buffer {
  const bytes = maskedFrame(opcode, Buffer.from(payload));
  bytes[0] = (fin ? 0x80 : 0) | rsv | opcode;
  return bytes;
}

function readAll(stream: Buffer, chunkSize = stream.length, limit = LIMIT) {
  const reader = new ClientMessageReader(limit);
  const out: ClientMessage[] = [];
  for (let at = 0; at < stream.length; at += chunkSize) out.push(...reader.push(stream.subarray(at, at + chunkSize)));
  return { reader, out, data: out.flatMap((m) => (m.kind === 'data' ? [`${m.opcode}:${m.payload.toString()}`] : [])) };
}

describe('ClientMessageReader', () => {
  it('gives back each message whole, however the bytes are cut', () => {
    const stream = Buffer.concat([frame(1, 'hello'), frame(2, 'binary'), frame(1, '')]);
    for (const size of [1, 2, 3, 7, stream.length]) {
      expect(readAll(stream, size).data).toEqual(['1:hello', '2:binary', '1:']);
    }
  });

  it('joins a fragmented message, and passes a ping sent between its fragments as it came', () => {
    const ping = frame(0x9, 'p');
    const { out } = readAll(Buffer.concat([frame(1, 'frag', false), ping, frame(0, 'men', false), frame(0, 't')]), 5);
    expect(out).toEqual([
      { kind: 'control', opcode: 0x9, frame: ping },
      { kind: 'data', opcode: 1, payload: Buffer.from('fragment') },
    ]);
  });

  it('unmasks payloads of every length encoding (7-bit, 16-bit, 64-bit)', () => {
    for (const length of [125, 126, 65_535, 65_536]) {
      const payload = randomBytes(length);
      const { out } = readAll(frame(2, payload), 4096, 1 << 20);
      expect(out).toEqual([{ kind: 'data', opcode: 2, payload }]);
    }
  });

  it('stops at a message over its bound as soon as the header says so, before reading the payload', () => {
    const { reader, data } = readAll(Buffer.concat([frame(1, 'ok'), frame(2, Buffer.alloc(LIMIT + 1)).subarray(0, 20)]));
    expect(data).toEqual(['1:ok']);
    expect(reader.oversized).toBe(true);
    // The bound holds across fragments too.
    const fragmented = readAll(Buffer.concat([frame(1, Buffer.alloc(LIMIT), false), frame(0, 'x')]));
    expect(fragmented.reader.oversized).toBe(true);
    expect(fragmented.data).toEqual([]);
  });

  it.each([
    ['a continuation outside a message', [frame(0, 'x')], /continuation frame outside a message/],
    ['a new message inside a fragmented one', [frame(1, 'a', false), frame(1, 'b')], /new WebSocket message before the last one ended/],
    ['a reserved bit (compression nobody negotiated)', [frame(1, 'x', true, 0x40)], /reserved bit/],
    ['a fragmented control frame', [frame(0x9, 'x', false)], /control frame/],
    ['an unmasked frame', [Buffer.from([0x81, 0x01, 0x61])], /without a mask/],
  ])('marks the stream broken on %s', (_name, frames, reason) => {
    const { reader } = readAll(Buffer.concat(frames));
    expect(reader.broken).toMatch(reason);
  });
});

/**
 * Read mode drops a page's messages as they stream (ClientFrameFilter) and hands each dropped one over, unmasked and
 * joined, for the run to judge what it carried: however the bytes are cut, nothing of it is passed on, and a message
 * over the bound is handed over as soon as its header says so (cut), never buffered past the bound.
 */
describe('ClientFrameFilter: dropped messages, read for the judge', () => {
  function dropAll(stream: Buffer, chunkSize = stream.length, limit = LIMIT) {
    const dropped: string[] = [];
    const passed: Buffer[] = [];
    const filter = new ClientFrameFilter({
      onDataFrame: () => false,
      stripControlPayloads: true,
      dropped: { limit, onMessage: (payload, cut) => dropped.push(`${cut ? 'cut:' : ''}${payload.toString()}`) },
    });
    for (let at = 0; at < stream.length; at += chunkSize) passed.push(...filter.push(stream.subarray(at, at + chunkSize)));
    return { dropped, passed: Buffer.concat(passed), filter };
  }

  it('hands over each message whole, however the bytes are cut, and passes none of it on', () => {
    const ping = frame(0x9, 'p');
    const stream = Buffer.concat([frame(1, 'hello'), frame(1, 'frag', false), ping, frame(0, 'men', false), frame(0, 't'), frame(1, '')]);
    for (const size of [1, 2, 3, 7, stream.length]) {
      const { dropped, passed } = dropAll(stream, size);
      expect(dropped).toEqual(['hello', 'fragment', '']);
      // Only the ping passes, stripped of its payload: 2 header bytes and a 4-byte mask.
      expect(passed.length).toBe(6);
      expect(passed[0]).toBe(0x89);
    }
  });

  it('unmasks payloads of every length encoding', () => {
    for (const length of [125, 126, 65_535, 65_536]) {
      const payload = randomBytes(length).toString('hex').slice(0, length);
      expect(dropAll(frame(1, payload), 4096, 1 << 20).dropped).toEqual([payload]);
    }
  });

  it('hands a message over the bound over at once, cut, before its payload has come (even one that never ends)', () => {
    const { dropped } = dropAll(Buffer.concat([frame(1, 'ok'), frame(2, Buffer.alloc(LIMIT + 1)).subarray(0, 20)]));
    expect(dropped).toEqual(['ok', 'cut:']);
    const fragmented = dropAll(Buffer.concat([frame(1, 'a'.repeat(LIMIT - 1), false), frame(0, 'xy'), frame(1, 'next')]));
    expect(fragmented.dropped).toEqual([`cut:${'a'.repeat(LIMIT - 1)}`, 'next']);
  });

  it('hands a compressed message over as unreadable (cut): its deflated bytes would hide what it carries', () => {
    // The attack: a server answers permessage-deflate although read mode took the offer out of the request, and the
    // page's message carrying a parameter goes out deflated (RSV1): read as it came, the judge would find nothing.
    const deflated = deflateRawSync(Buffer.from('{"note":"SECRET-PARAM-123"}'));
    const { dropped, passed } = dropAll(Buffer.concat([frame(1, deflated, true, 0x40), frame(1, 'plain')]));
    expect(dropped).toEqual([`cut:`, 'plain']);
    expect(passed.length).toBe(0);
  });

  it('hands a message the socket closed in the middle of over as unreadable (cut), once, however far it got', () => {
    // The attack: a page begins a message carrying a parameter and its socket closes before the frame ends; read as it
    // stood, the judge would never hear of it (nothing reports a message that never finished).
    const secret = frame(1, '{"note":"SECRET-PARAM-123","pad":"' + 'x'.repeat(40) + '"}');
    const cuts: [string, Buffer][] = [
      ['mid-payload', secret.subarray(0, secret.length - 10)],
      ['right after the header', secret.subarray(0, 6)],
      ['inside the header', secret.subarray(0, 3)],
      ['between the fragments of a message', Buffer.concat([frame(1, 'SECRET-', false), frame(0, 'PARAM', false)])],
    ];
    for (const [name, bytes] of cuts) {
      const { dropped, filter } = dropAll(Buffer.concat([frame(1, 'whole'), bytes]), 5);
      filter.end();
      filter.end();
      expect([name, dropped]).toEqual([name, ['whole', expect.stringMatching(/^cut:/)]]);
    }
  });

  it('reports nothing more when the socket closes between messages, after a control frame, or after a cut was reported', () => {
    for (const stream of [
      frame(1, 'whole'),
      Buffer.concat([frame(1, 'whole'), frame(0x9, 'p')]),
      Buffer.concat([frame(1, 'whole'), frame(0x8, '').subarray(0, 3)]),
    ]) {
      const { dropped, filter } = dropAll(stream);
      filter.end();
      expect(dropped).toEqual(['whole']);
    }
    const { dropped, filter } = dropAll(frame(2, Buffer.alloc(LIMIT + 1)).subarray(0, 20));
    filter.end();
    expect(dropped).toEqual(['cut:']);
  });

  it('reports a message still unfinished on an open socket as unreadable (cut) when asked, once, and never again as whole', () => {
    // The attack: a page begins a message carrying a parameter and keeps its socket open without sending the rest; the
    // socket closes after the run was judged. Asked before the judgement, the filter hands the message over as cut.
    const secret = frame(1, '{"note":"SECRET-PARAM-123","pad":"' + 'x'.repeat(40) + '"}');
    const cuts: [string, Buffer, Buffer][] = [
      ['mid-payload', secret.subarray(0, secret.length - 10), secret.subarray(secret.length - 10)],
      ['right after the header', secret.subarray(0, 6), secret.subarray(6)],
      ['inside the header', secret.subarray(0, 3), secret.subarray(3)],
      ['between the fragments of a message', frame(1, 'SECRET-', false), frame(0, 'PARAM')],
    ];
    for (const [name, begun, rest] of cuts) {
      const { dropped, filter } = dropAll(Buffer.concat([frame(1, 'whole'), begun]), 5);
      filter.reportUnfinished();
      filter.reportUnfinished();
      expect([name, dropped]).toEqual([name, ['whole', expect.stringMatching(/^cut:/)]]);
      // The page finishes it later: the cut report stands (no whole report follows), and the next message is read as usual.
      filter.push(Buffer.concat([rest, frame(1, 'next')]));
      filter.reportUnfinished();
      filter.end();
      expect([name, dropped.slice(2)]).toEqual([name, ['next']]);
    }
  });

  it('reports nothing when asked between messages, after a control frame, or after a cut was reported; the stream reads on', () => {
    for (const stream of [
      frame(1, 'whole'),
      Buffer.concat([frame(1, 'whole'), frame(0x9, 'p')]),
      Buffer.concat([frame(1, 'whole'), frame(0x9, 'p').subarray(0, 3)]),
    ]) {
      const { dropped, filter } = dropAll(stream);
      filter.reportUnfinished();
      expect(dropped).toEqual(['whole']);
    }
    const over = dropAll(frame(2, Buffer.alloc(LIMIT + 1)).subarray(0, 20));
    over.filter.reportUnfinished();
    over.filter.end();
    expect(over.dropped).toEqual(['cut:']);
    // Asked while nothing is unfinished, then a message begins and ends: reported whole, as ever.
    const later = dropAll(frame(1, 'first'));
    later.filter.reportUnfinished();
    const passed = later.filter.push(frame(1, 'second'));
    expect(later.dropped).toEqual(['first', 'second']);
    expect(passed).toEqual([]);
  });
});
