import { randomBytes } from 'node:crypto';

/**
 * Reads the frames a browser sends on a WebSocket (RFC 6455 §5.2), as bytes stream through the egress proxy, so the
 * proxy can count every data frame (a message that may change something) and, in read mode, drop them. Control frames
 * (close, ping, pong) always pass: they keep the connection alive and change nothing. Frames are dropped whole: with
 * no extension negotiated (read mode strips `Sec-WebSocket-Extensions`), each client frame is masked on its own, so
 * the frames that remain are still a valid stream for the server.
 *
 * Frame headers are bounded (at most 14 bytes), payloads are passed on or dropped as they arrive, never buffered.
 * Control frames must follow RFC 6455 §5.5 (unfragmented, at most 125 bytes), else the stream is broken. When messages
 * are held for approval, ClientMessageReader reads them whole instead (bounded).
 */
export interface ClientFrameDecision {
  /** Called at the start of each data frame (opcode 0 continuation, 1 text, 2 binary). True: send it; false: drop it. */
  onDataFrame(opcode: number): boolean;
  /**
   * Replace each control frame by one of the same kind with no payload (a close keeps only code 1000): a close
   * reason or a ping body is up to 125 bytes the page chooses, and a server may act on them.
   */
  stripControlPayloads?: boolean;
  /**
   * Each dropped data message, read as it streams by (its frames unmasked and joined), for the run to judge what it
   * carried (read mode: block-cause.ts): at most `limit` bytes are kept, `cut` when the message was longer.
   */
  dropped?: { limit: number; onMessage(payload: Buffer, cut: boolean): void };
}

/**
 * A masked client frame of `opcode` carrying `payload` whole, whatever its length (RFC 6455 §5.2), with a fresh random
 * mask (§5.3).
 */
export function maskedFrame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const size = length < 126 ? Buffer.from([0x80 | length]) : Buffer.alloc(length < 0x10000 ? 3 : 9);
  if (length >= 0x10000) {
    size[0] = 0x80 | 127;
    size.writeBigUInt64BE(BigInt(length), 1);
  } else if (length >= 126) {
    size[0] = 0x80 | 126;
    size.writeUInt16BE(length, 1);
  }
  const mask = randomBytes(4);
  return Buffer.concat([Buffer.from([0x80 | opcode]), size, mask, xorMask(payload, mask)]);
}

/** Masking and unmasking are the same XOR with the 4-byte key (RFC 6455 §5.3). */
function xorMask(payload: Buffer, mask: Buffer): Buffer {
  const out = Buffer.allocUnsafe(payload.length);
  for (let i = 0; i < payload.length; i++) out[i] = payload[i]! ^ mask[i & 3]!;
  return out;
}

const NORMAL_CLOSURE = Buffer.from([0x03, 0xe8]);

/** The first control opcode (RFC 6455 §5.2): opcodes below it are data frames. */
export const OPCODE_CLOSE = 0x8;

const MAX_HEADER = 14;

export class ClientFrameFilter {
  private readonly header = new HeaderCollector();
  /** Payload bytes left in the current frame. */
  private remaining = 0n;
  private forwarding = true;
  /** The dropped data frame being read for `dropped`: its mask, how far into its payload, whether it ends a message. */
  private reading: { mask: Buffer; at: number; fin: boolean } | null = null;
  /** The dropped message being assembled for `dropped`, across its frames. */
  private message: { parts: Buffer[]; length: number; cut: boolean } | null = null;
  /** A data frame's header, begun and not yet whole, was handed over as unreadable (reportUnfinished): its message is not again. */
  private headerReported = false;
  /** Set when the stream is not WebSocket framing the proxy can follow: the connection must be closed. */
  broken: string | null = null;

  constructor(private readonly decide: ClientFrameDecision) {}

  /** The bytes of `chunk` to send on to the server, in order. */
  push(chunk: Buffer): Buffer[] {
    const out: Buffer[] = [];
    let at = 0;
    while (at < chunk.length && !this.broken) {
      if (this.remaining > 0n) {
        const take = Number(this.remaining < BigInt(chunk.length - at) ? this.remaining : BigInt(chunk.length - at));
        if (this.forwarding) out.push(chunk.subarray(at, at + take));
        else if (this.reading) this.keep(chunk.subarray(at, at + take));
        this.remaining -= BigInt(take);
        at += take;
        if (this.remaining === 0n) this.frameEnded();
        continue;
      }
      const step = this.header.take(chunk, at);
      at += step.used;
      if (step.error) this.broken = step.error;
      const parsed = step.header;
      if (!parsed) continue;
      const reported = this.headerReported;
      this.headerReported = false;
      const headerBytes = parsed.bytes;
      if (parsed.opcode >= 0x8) {
        this.broken = controlFrameError(parsed);
        if (this.broken) break;
        this.forwarding = !this.decide.stripControlPayloads;
        if (!this.forwarding)
          out.push(maskedFrame(parsed.opcode, parsed.opcode === 0x8 && parsed.payloadLength > 0n ? NORMAL_CLOSURE : Buffer.alloc(0)));
      } else {
        this.forwarding = this.decide.onDataFrame(parsed.opcode);
        if (!this.forwarding && this.decide.dropped) {
          // A new message (not a continuation) starts afresh: one cut off before its last frame is not joined to it.
          // One whose header was handed over unfinished already stands as reported (cut): it is not reported again.
          if (parsed.opcode !== 0 || !this.message) this.message = { parts: [], length: 0, cut: reported };
          this.reading = { mask: headerBytes.subarray(headerBytes.length - 4), at: 0, fin: parsed.fin };
          // Longer than the bound: handed over at once, as far as it is known (a message that never ends is reported too).
          const message = this.message;
          // A reserved bit means the frame is compressed or otherwise encoded (a server that answered an extension it was
          // not offered): its bytes cannot be read as sent, so the message counts as unreadable, like one over the bound.
          const unreadable = parsed.rsv !== 0;
          if (!message.cut && (unreadable || BigInt(message.length) + parsed.payloadLength > BigInt(this.decide.dropped.limit))) {
            message.cut = true;
            this.decide.dropped.onMessage(Buffer.concat(message.parts, message.length), true);
          }
        }
      }
      if (this.forwarding) out.push(headerBytes);
      this.remaining = parsed.payloadLength;
      if (this.remaining === 0n) this.frameEnded();
    }
    return out;
  }

  /**
   * The run is about to be judged while the page's socket is still open: a dropped message the page began and has not
   * finished (a data frame begun, a fragmented message without its last frame, or a data frame's header cut short) is
   * handed over now as unreadable (cut), as end() would once the socket closes, which may be after the run was judged.
   * Nothing is reset: the filter goes on reading the stream, and the rest of that message, should it come, is dropped
   * with it and never handed over again (the cut report stands); the messages after it are read as usual. Idempotent.
   */
  reportUnfinished(): void {
    if (!this.decide.dropped || this.broken) return;
    const message = this.message;
    if (message) {
      if (message.cut) return;
      message.cut = true;
      this.decide.dropped.onMessage(Buffer.concat(message.parts, message.length), true);
      // Nothing more of it is kept (keep() reads only for a message not yet handed over).
      message.parts = [];
      message.length = 0;
      return;
    }
    const begun = this.header.pendingOpcode();
    if (begun === null || begun >= OPCODE_CLOSE || this.headerReported) return;
    this.headerReported = true;
    this.decide.dropped.onMessage(Buffer.alloc(0), true);
  }

  /**
   * The page's side ended (closed, or sent its FIN): nothing more can come. A dropped message it left unfinished (a data
   * frame begun, a fragmented message without its last frame, or a data frame's header cut short) is handed over as
   * unreadable (cut), like one over the bound: what it would have carried cannot be known. Idempotent.
   */
  end(): void {
    const message = this.message;
    const begun = this.header.pendingOpcode();
    const reported = this.headerReported;
    this.message = null;
    this.reading = null;
    this.remaining = 0n;
    this.headerReported = false;
    this.header.reset();
    if (!this.decide.dropped || this.broken) return;
    if (message && !message.cut) this.decide.dropped.onMessage(Buffer.concat(message.parts, message.length), true);
    else if (!message && !reported && begun !== null && begun < OPCODE_CLOSE) this.decide.dropped.onMessage(Buffer.alloc(0), true);
  }

  /** Keeps a dropped frame's payload, unmasked (a message over the bound was handed over already: nothing more is kept). */
  private keep(bytes: Buffer): void {
    const reading = this.reading!;
    const message = this.message!;
    if (!message.cut) {
      const out = Buffer.allocUnsafe(bytes.length);
      for (let i = 0; i < bytes.length; i++) out[i] = bytes[i]! ^ reading.mask[(reading.at + i) & 3]!;
      message.parts.push(out);
      message.length += out.length;
    }
    reading.at += bytes.length;
  }

  /** A frame's payload is all through: a dropped message's last frame hands the message over. */
  private frameEnded(): void {
    const reading = this.reading;
    this.reading = null;
    if (!reading?.fin || !this.message) return;
    const { parts, length, cut } = this.message;
    this.message = null;
    if (!cut) this.decide.dropped!.onMessage(Buffer.concat(parts, length), false);
  }
}

/** What a page sent, read whole: a data message (its frames joined and unmasked) or a control frame as it came. */
export type ClientMessage = { kind: 'data'; opcode: number; payload: Buffer } | { kind: 'control'; opcode: number; frame: Buffer };

/**
 * Reads whole messages from a page's frames, so that each can be held and decided on before any byte of it is sent
 * (ChangeGate.approve). Unlike ClientFrameFilter this buffers, so it is bounded: a message over `maxMessage` bytes is
 * not read further (`oversized`, checked at each frame header, before its payload is taken). No extension may be
 * negotiated (the proxy strips them when it holds messages), so a frame with a reserved bit set is broken framing.
 */
export class ClientMessageReader {
  private readonly header = new HeaderCollector();
  /** The frame being read: its header, and its payload as it fills. */
  private frame: { header: Header & { bytes: Buffer }; payload: Buffer; filled: number } | null = null;
  /** The data message being assembled, across its frames. */
  private message: { opcode: number; parts: Buffer[]; length: number } | null = null;
  /** Set when the stream is not WebSocket framing the proxy can follow: the connection must be closed. */
  broken: string | null = null;
  /** Set when a message is longer than the reader may hold: the connection must be closed. */
  oversized = false;

  constructor(private readonly maxMessage: number) {}

  /** The messages and control frames `chunk` completes, in order. */
  push(chunk: Buffer): ClientMessage[] {
    const out: ClientMessage[] = [];
    let at = 0;
    while (at < chunk.length && !this.broken && !this.oversized) {
      if (!this.frame) {
        const step = this.header.take(chunk, at);
        at += step.used;
        if (step.error) this.broken = step.error;
        if (step.header) this.begin(step.header);
      } else {
        const take = Math.min(this.frame.payload.length - this.frame.filled, chunk.length - at);
        chunk.copy(this.frame.payload, this.frame.filled, at, at + take);
        this.frame.filled += take;
        at += take;
      }
      // A frame with an empty payload is whole as soon as its header is.
      if (this.frame && this.frame.filled === this.frame.payload.length) {
        const done = this.complete(this.frame.header, this.frame.payload);
        this.frame = null;
        if (done) out.push(done);
      }
    }
    return out;
  }

  /** Checks a frame's header against what may come next, and the bound, before any of its payload is read. */
  private begin(header: Header & { bytes: Buffer }): void {
    this.broken = this.frameError(header);
    if (this.broken) return;
    if (header.opcode < OPCODE_CLOSE && BigInt(this.message?.length ?? 0) + header.payloadLength > BigInt(this.maxMessage)) {
      this.oversized = true;
      return;
    }
    this.frame = { header, payload: Buffer.allocUnsafe(Number(header.payloadLength)), filled: 0 };
  }

  private frameError(header: Header): string | null {
    if (header.rsv) return 'a WebSocket frame with a reserved bit set (no extension was negotiated)';
    if (header.opcode >= OPCODE_CLOSE) return controlFrameError(header);
    if (header.opcode === 0 && !this.message) return 'a WebSocket continuation frame outside a message';
    if (header.opcode !== 0 && this.message) return 'a new WebSocket message before the last one ended';
    return null;
  }

  private complete(header: Header & { bytes: Buffer }, payload: Buffer): ClientMessage | null {
    if (header.opcode >= OPCODE_CLOSE) return { kind: 'control', opcode: header.opcode, frame: Buffer.concat([header.bytes, payload]) };
    const message = (this.message ??= { opcode: header.opcode, parts: [], length: 0 });
    message.parts.push(xorMask(payload, header.bytes.subarray(header.bytes.length - 4)));
    message.length += payload.length;
    if (!header.fin) return null;
    this.message = null;
    return { kind: 'data', opcode: message.opcode, payload: Buffer.concat(message.parts, message.length) };
  }
}

type Header = { fin: boolean; rsv: number; opcode: number; headerLength: number; payloadLength: bigint };

function parseHeader(b: Buffer): Header | 'short' | string {
  if (b.length < 2) return 'short';
  const opcode = b[0] & 0x0f;
  if (![0x0, 0x1, 0x2, 0x8, 0x9, 0xa].includes(opcode)) return `unknown WebSocket opcode ${opcode}`;
  if ((b[1] & 0x80) === 0) return 'a client WebSocket frame without a mask';
  const len7 = b[1] & 0x7f;
  const extra = len7 === 126 ? 2 : len7 === 127 ? 8 : 0;
  const headerLength = 2 + extra + 4;
  if (b.length < headerLength) return 'short';
  const payloadLength = len7 === 126 ? BigInt(b.readUInt16BE(2)) : len7 === 127 ? b.readBigUInt64BE(2) : BigInt(len7);
  return { fin: (b[0] & 0x80) !== 0, rsv: b[0] & 0x70, opcode, headerLength, payloadLength };
}

/** RFC 6455 §5.5: a control frame is never fragmented and carries at most 125 bytes. */
function controlFrameError(h: Header): string | null {
  return !h.fin || h.payloadLength > 125n ? 'a WebSocket control frame that is fragmented or longer than 125 bytes' : null;
}

/** Collects one frame header (2 to 14 bytes) across chunks. */
class HeaderCollector {
  private pending = Buffer.alloc(0);

  /** The opcode of a header begun and not yet whole, if any. */
  pendingOpcode(): number | null {
    return this.pending.length ? this.pending[0]! & 0x0f : null;
  }

  reset(): void {
    this.pending = Buffer.alloc(0);
  }

  /**
   * Reads from `chunk` at `at`: how many bytes it took, and the header with its bytes once whole, or why the stream is
   * broken. Only the header's own bytes are taken from the chunk; the rest is payload.
   */
  take(chunk: Buffer, at: number): { used: number; header?: Header & { bytes: Buffer }; error?: string } {
    const need = Math.min(MAX_HEADER - this.pending.length, chunk.length - at);
    const candidate = Buffer.concat([this.pending, chunk.subarray(at, at + need)]);
    const parsed = parseHeader(candidate);
    if (parsed === 'short') {
      this.pending = candidate;
      return { used: need };
    }
    if (typeof parsed === 'string') return { used: 0, error: parsed };
    const used = parsed.headerLength - this.pending.length;
    this.pending = Buffer.alloc(0);
    return { used, header: { ...parsed, bytes: candidate.subarray(0, parsed.headerLength) } };
  }
}
