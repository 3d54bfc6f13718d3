import { randomBytes } from 'node:crypto';

/**
 * Reads the frames a browser sends on a WebSocket (RFC 6455 §5.2), as bytes stream through the egress proxy, so the
 * proxy can count every data frame (a message that may change something) and, in read mode, drop them. Control frames
 * (close, ping, pong) always pass: they keep the connection alive and change nothing. Frames are dropped whole: with
 * no extension negotiated (read mode strips `Sec-WebSocket-Extensions`), each client frame is masked on its own, so
 * the frames that remain are still a valid stream for the server.
 *
 * Frame headers are bounded (at most 14 bytes), payloads are passed on or dropped as they arrive, never buffered.
 * Control frames must follow RFC 6455 §5.5 (unfragmented, at most 125 bytes), else the stream is broken.
 */
export interface ClientFrameDecision {
  /** Called at the start of each data frame (opcode 0 continuation, 1 text, 2 binary). True: send it; false: drop it. */
  onDataFrame(opcode: number): boolean;
  /**
   * Replace each control frame by one of the same kind with no payload (a close keeps only code 1000): a close
   * reason or a ping body is up to 125 bytes the page chooses, and a server may act on them.
   */
  stripControlPayloads?: boolean;
}

/** A masked client frame of `opcode` carrying `payload` (a fresh random mask, as RFC 6455 §5.3 asks). */
function maskedFrame(opcode: number, payload: Buffer): Buffer {
  const mask = randomBytes(4);
  const body = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!));
  return Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | payload.length]), mask, body]);
}

const NORMAL_CLOSURE = Buffer.from([0x03, 0xe8]);

const MAX_HEADER = 14;

export class ClientFrameFilter {
  private header = Buffer.alloc(0);
  /** Payload bytes left in the current frame. */
  private remaining = 0n;
  private forwarding = true;
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
        this.remaining -= BigInt(take);
        at += take;
        continue;
      }
      // Collect one frame header (2 to 14 bytes) before deciding.
      const need = Math.min(MAX_HEADER - this.header.length, chunk.length - at);
      const candidate = Buffer.concat([this.header, chunk.subarray(at, at + need)]);
      const parsed = parseHeader(candidate);
      if (parsed === 'short') {
        this.header = candidate;
        at += need;
        continue;
      }
      if (typeof parsed === 'string') {
        this.broken = parsed;
        break;
      }
      // Only the header's own bytes are consumed from this chunk; the rest is payload.
      const fromChunk = parsed.headerLength - this.header.length;
      const headerBytes = candidate.subarray(0, parsed.headerLength);
      this.header = Buffer.alloc(0);
      at += fromChunk;
      if (parsed.opcode >= 0x8) {
        // RFC 6455 §5.5: a control frame is never fragmented and carries at most 125 bytes.
        if (!parsed.fin || parsed.payloadLength > 125n) {
          this.broken = 'a WebSocket control frame that is fragmented or longer than 125 bytes';
          break;
        }
        this.forwarding = !this.decide.stripControlPayloads;
        if (!this.forwarding)
          out.push(maskedFrame(parsed.opcode, parsed.opcode === 0x8 && parsed.payloadLength > 0n ? NORMAL_CLOSURE : Buffer.alloc(0)));
      } else {
        this.forwarding = this.decide.onDataFrame(parsed.opcode);
      }
      if (this.forwarding) out.push(headerBytes);
      this.remaining = parsed.payloadLength;
    }
    return out;
  }
}

type Header = { fin: boolean; opcode: number; headerLength: number; payloadLength: bigint };

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
  return { fin: (b[0] & 0x80) !== 0, opcode, headerLength, payloadLength };
}
