/** What page code of ours that stands in for a built-in uses to fail as the built-in does (builtInErrors). */
export interface BuiltInErrors {
  /** Throws `error` on, its stack begun at the page's call (below `ours`): no frame of our script in it. */
  rethrow: (error: unknown, ours: unknown) => never;
  /** The page's call of `ours`, taken as it is made, for an answer that may reject later (`restacked`). */
  callSite: (ours: unknown) => { stack?: string };
  /** `result`, whose rejection gets the frames of `site` after its own first line, as a built-in's own rejection has. */
  restacked: <T>(result: Promise<T>, site: { stack?: string }) => Promise<T>;
}

/**
 * Errors of a realm's built-ins that page code of ours stands in for (the device, the WebAuthn gate), as the browser's
 * own: sites' lie detectors call a getter on the wrong object or a method with garbage and read the error's stack,
 * where a frame of a script that is not the page's is the trace they look for. A built-in's own frames do not show
 * (Blink's), so an error thrown through ours starts at the page's call: V8's Error.captureStackTrace, told to leave out
 * our function and what it called. An error the page's own code threw from inside the built-in (a valueOf of an
 * argument) loses its frames above ours too: rarer, and still no frame of ours.
 *
 * Self-contained (nothing from outside its body but its argument): the device's worker prelude carries its source text.
 */
export function builtInErrors(g: typeof globalThis): BuiltInErrors {
  const ErrorType = g.Error; // DOMException inherits from it
  const capture = (ErrorType as unknown as { captureStackTrace?: (target: object, below: unknown) => void }).captureStackTrace;
  const then = g.Promise.prototype.then;
  const apply = g.Reflect.apply; // not then.call: a page may have replaced Function.prototype.call
  return {
    rethrow(error, ours) {
      if (capture && error instanceof ErrorType) capture(error, ours);
      throw error;
    },
    callSite(ours) {
      const site: { stack?: string } = {};
      if (capture) capture(site, ours);
      return site;
    },
    restacked(result, site) {
      return apply(then, result, [
        undefined,
        (error: unknown) => {
          const own: unknown = error instanceof ErrorType ? error.stack : undefined;
          if (typeof own === 'string' && typeof site.stack === 'string') {
            // Its own first line (Blink's, which is not always `name: message`), then the frames of the page's call.
            const head = own.indexOf('\n    at ');
            const frames = site.stack.indexOf('\n    at ');
            const stack = `${head < 0 ? own : own.slice(0, head)}${frames < 0 ? '' : site.stack.slice(frames)}`;
            // Assigned, not defined: the property keeps the shape V8 gave it (an accessor pair in this Chromium).
            (error as { stack?: string }).stack = stack;
          }
          throw error;
        },
      ]) as typeof result;
    },
  };
}
