import { randomInt } from 'node:crypto';
import zlib from 'node:zlib';

/**
 * The identity provider's visual challenge: a short code drawn as pixels into a PNG, with jitter and noise. The code
 * is in no text, attribute or script of the page, so a script reading the DOM cannot pass it; a person reads it off
 * the picture (in the live view, off the streamed frame). It is a stand-in for a real site's captcha, not a strong one.
 */
const GLYPHS: Record<string, string[]> = {
  A: ['01110', '10001', '10001', '11111', '10001', '10001', '10001'],
  C: ['01111', '10000', '10000', '10000', '10000', '10000', '01111'],
  D: ['11110', '10001', '10001', '10001', '10001', '10001', '11110'],
  E: ['11111', '10000', '10000', '11110', '10000', '10000', '11111'],
  F: ['11111', '10000', '10000', '11110', '10000', '10000', '10000'],
  H: ['10001', '10001', '10001', '11111', '10001', '10001', '10001'],
  K: ['10001', '10010', '10100', '11000', '10100', '10010', '10001'],
  M: ['10001', '11011', '10101', '10101', '10001', '10001', '10001'],
  N: ['10001', '11001', '10101', '10011', '10001', '10001', '10001'],
  P: ['11110', '10001', '10001', '11110', '10000', '10000', '10000'],
  R: ['11110', '10001', '10001', '11110', '10100', '10010', '10001'],
  T: ['11111', '00100', '00100', '00100', '00100', '00100', '00100'],
  W: ['10001', '10001', '10001', '10101', '10101', '11011', '10001'],
  X: ['10001', '10001', '01010', '00100', '01010', '10001', '10001'],
  Y: ['10001', '10001', '01010', '00100', '00100', '00100', '00100'],
  '3': ['11110', '00001', '00001', '01110', '00001', '00001', '11110'],
  '4': ['00010', '00110', '01010', '10010', '11111', '00010', '00010'],
  '6': ['01110', '10000', '10000', '11110', '10001', '10001', '01110'],
  '7': ['11111', '00001', '00010', '00100', '01000', '01000', '01000'],
  '9': ['01110', '10001', '10001', '01111', '00001', '00001', '01110'],
};
/** Letters and digits no one confuses with another (no 0/O, 1/I/L, 2/Z, 5/S, 8/B). */
export const CHALLENGE_ALPHABET = Object.keys(GLYPHS).join('');
export const CHALLENGE_LENGTH = 5;

const SCALE = 6;
const GAP = 14;
const PAD = 16;

export function newChallengeCode(): string {
  let code = '';
  for (let i = 0; i < CHALLENGE_LENGTH; i++) code += CHALLENGE_ALPHABET[randomInt(CHALLENGE_ALPHABET.length)];
  return code;
}

/** The code as a grayscale PNG (dark glyphs on a light, speckled background). */
export function challengePng(code: string): Buffer {
  const glyphW = 5 * SCALE;
  const glyphH = 7 * SCALE;
  const width = PAD * 2 + code.length * glyphW + (code.length - 1) * GAP;
  const height = PAD * 2 + glyphH + 12;
  const pixels = Buffer.alloc(width * height, 0xf1);
  for (let i = 0; i < (width * height) / 12; i++) pixels[randomInt(width * height)] = 0x90 + randomInt(0x50);
  [...code].forEach((ch, n) => {
    const glyph = GLYPHS[ch];
    if (!glyph) return;
    const x0 = PAD + n * (glyphW + GAP) + randomInt(5) - 2;
    const y0 = PAD + randomInt(12);
    for (let gy = 0; gy < 7; gy++)
      for (let gx = 0; gx < 5; gx++) {
        if (glyph[gy][gx] !== '1') continue;
        for (let dy = 0; dy < SCALE; dy++)
          for (let dx = 0; dx < SCALE; dx++) pixels[(y0 + gy * SCALE + dy) * width + x0 + gx * SCALE + dx] = 0x20 + randomInt(0x20);
      }
  });
  const rows = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) pixels.copy(rows, y * (width + 1) + 1, y * width, (y + 1) * width);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // grayscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length, 0);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body), 0);
  return Buffer.concat([length, body, crc]);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
