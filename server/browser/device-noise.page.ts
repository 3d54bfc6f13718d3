import type { WorkerKit } from './device-workers.page';

/** What applyDevice (device.page.ts) lends the noise: its realm, the connection's seed and its wrappers. */
export interface NoiseKit extends Pick<WorkerKit, 'g' | 'method'> {
  seed: number;
  getter: (proto: object | undefined, name: string, read: (self: unknown, original: () => unknown) => unknown) => void;
  promiseThen: typeof Promise.prototype.then;
}

/**
 * A few pixels and samples moved by the least step, where the connection's seed says: each connection draws its own
 * canvas, WebGL and audio fingerprint, the same one every time. Never on what the page put in itself: a flat fill, a
 * WebGL clear and samples it wrote read back as written (a lie detector's first test); only where a picture changes,
 * and only audio an OfflineAudioContext rendered.
 *
 * Self-contained (nothing from outside its body but its argument): device.page.ts puts its source text into the
 * prelude it makes for workers.
 */
export function applyNoise(kit: NoiseKit): void {
  const { g, seed, getter, method, promiseThen } = kit;
  const describe = Object.getOwnPropertyDescriptor;
  const apply = g.Reflect.apply; // the realm's own, taken before any of its page scripts ran (device-workers.page.ts)
  const protoOf = (name: string) => (g[name] as { prototype?: object } | undefined)?.prototype;
  const noisy = (index: number) => {
    let x = (index ^ seed) >>> 0;
    x = Math.imul(x ^ (x >>> 16), 0x45d9f3b) >>> 0;
    x = Math.imul(x ^ (x >>> 16), 0x45d9f3b) >>> 0;
    return (x ^ (x >>> 16)) >>> 0;
  };
  // Whether two pixels differ, their lowest bits aside (the bits the noise sets: a second pass decides as the first).
  const differ = (data: Uint8ClampedArray, a: number, b: number) =>
    (((data[a]! ^ data[b]!) | (data[a + 1]! ^ data[b + 1]!) | (data[a + 2]! ^ data[b + 2]!) | (data[a + 3]! ^ data[b + 3]!)) & 0xfe) !== 0;
  const touchPixels = (data: Uint8ClampedArray) => {
    for (let p = 0; p < data.length; p += 4) {
      const h = noisy(p >> 2);
      if ((h & 31) !== 0 || data[p + 3] === 0) continue;
      // Only where the picture changes (an edge, text, a gradient): a flat fill the page knows the colour of reads back
      // exactly that colour, as in any browser (a filled square read back is a lie detector's first test).
      if (!(p >= 4 && differ(data, p, p - 4)) && !(p + 4 < data.length && differ(data, p, p + 4))) continue;
      // Its lowest bit set to the seed's, not stepped: noise put on noise changes nothing, so a read written back and
      // read again, or a worker whose every imported module ran this prelude, draws what one pass draws.
      const c = p + ((h >>> 5) % 3);
      data[c] = (data[c] & 0xfe) | ((h >>> 16) & 1);
    }
  };
  for (const gl of [protoOf('WebGLRenderingContext'), protoOf('WebGL2RenderingContext')])
    method(gl, 'readPixels', (_self, args, original) => {
      const out = original(args);
      const pixels = args[6];
      if (pixels instanceof g.Uint8Array && args[4] === 0x1908 /* RGBA */) touchPixels(pixels as unknown as Uint8ClampedArray);
      return out;
    });
  const ctx2d = protoOf('CanvasRenderingContext2D');
  const getImageData = ctx2d ? (describe(ctx2d, 'getImageData')?.value as CanvasRenderingContext2D['getImageData']) : undefined;
  const putImageData = ctx2d
    ? (describe(ctx2d, 'putImageData')?.value as (this: CanvasRenderingContext2D, image: ImageData, x: number, y: number) => void)
    : undefined;
  method(ctx2d, 'getImageData', (_self, _args, original) => {
    const image = original(_args) as ImageData;
    touchPixels(image.data);
    return image;
  });
  const canvasProto = protoOf('HTMLCanvasElement');
  const getContext = canvasProto ? (describe(canvasProto, 'getContext')?.value as HTMLCanvasElement['getContext']) : undefined;
  const drawImage = ctx2d
    ? (describe(ctx2d, 'drawImage')?.value as (this: CanvasRenderingContext2D, image: unknown, x: number, y: number) => void)
    : undefined;
  const widthOf = canvasProto ? describe(canvasProto, 'width')?.get : undefined;
  const heightOf = canvasProto ? describe(canvasProto, 'height')?.get : undefined;
  const setWidth = canvasProto ? describe(canvasProto, 'width')?.set : undefined;
  const setHeight = canvasProto ? describe(canvasProto, 'height')?.set : undefined;
  const createElement = (protoOf('Document') as Document | undefined)?.createElement;
  const doc = g.document as Document | undefined;
  /**
   * A copy of the canvas (of any kind: 2D, WebGL) with the noise in it, on a canvas of ours; null when it is empty or
   * cannot be read (tainted). The page's canvas is only drawn from: no context is made on it (a canvas with a 2D
   * context can never have a WebGL one).
   */
  const noisedCopy = (canvas: HTMLCanvasElement): HTMLCanvasElement | null => {
    if (
      !getContext ||
      !getImageData ||
      !putImageData ||
      !drawImage ||
      !widthOf ||
      !heightOf ||
      !setWidth ||
      !setHeight ||
      !createElement ||
      !doc
    )
      return null;
    try {
      const width = apply(widthOf, canvas, []) as number;
      const height = apply(heightOf, canvas, []) as number;
      if (!width || !height) return null;
      const copy = apply(createElement, doc, ['canvas']) as HTMLCanvasElement;
      apply(setWidth, copy, [width]);
      apply(setHeight, copy, [height]);
      const context = apply(getContext, copy, ['2d']) as CanvasRenderingContext2D;
      apply(drawImage, context, [canvas, 0, 0]);
      const image = apply(getImageData, context, [0, 0, width, height]) as ImageData;
      touchPixels(image.data);
      apply(putImageData, context, [image, 0, 0]);
      return copy;
    } catch {
      return null; // a tainted canvas: the browser's own error follows from the original call
    }
  };
  for (const name of ['toDataURL', 'toBlob'])
    method(canvasProto, name, (self, args, original, raw) => {
      const copy = noisedCopy(self as HTMLCanvasElement);
      return copy ? apply(raw, copy, args) : original(args);
    });

  // Audio: only what an OfflineAudioContext rendered (the audio fingerprint), never samples the page put in itself.
  const rendered = new WeakSet<object>();
  const touched = new WeakSet<Float32Array>();
  const audioBuffer = protoOf('AudioBuffer');
  const channelData = audioBuffer ? (describe(audioBuffer, 'getChannelData')?.value as AudioBuffer['getChannelData']) : undefined;
  const noisedChannel = (buffer: AudioBuffer, channel: number) => {
    const samples = channelData!.call(buffer, channel);
    if (!touched.has(samples)) {
      touched.add(samples);
      for (let i = 0; i < samples.length; i++) {
        const h = noisy(i);
        if ((h & 7) === 0) samples[i] *= 1 + (((h >>> 3) % 997) + 1) * 1e-7;
      }
    }
    return samples;
  };
  method(audioBuffer, 'getChannelData', (self, args, original) => {
    const samples = original(args) as Float32Array;
    return rendered.has(self as object) ? noisedChannel(self as AudioBuffer, args[0] as number) : samples;
  });
  method(audioBuffer, 'copyFromChannel', (self, args, original) => {
    try {
      if (rendered.has(self as object) && channelData) noisedChannel(self as AudioBuffer, Number(args[1]) >>> 0);
    } catch {
      // a channel it does not have: the browser's own error follows
    }
    return original(args);
  });
  getter(protoOf('OfflineAudioCompletionEvent'), 'renderedBuffer', (_self, original) => {
    const buffer = original() as object;
    rendered.add(buffer);
    return buffer;
  });
  method(protoOf('OfflineAudioContext'), 'startRendering', (_self, _args, original) => {
    const rendering = original() as Promise<object>;
    promiseThen.call(
      rendering,
      (buffer) => void rendered.add(buffer),
      () => undefined,
    ); // before the page's own then
    return rendering;
  });
}
