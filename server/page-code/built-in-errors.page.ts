/** What page code of ours that stands in for a built-in uses to fail as the built-in does (builtInErrors). */
export interface BuiltInErrors {
  /**
   * Throws `error` on, its stack begun at the page's call (below `ours`): no frame of our script in it. With
   * `ownFrame`, the frame the built-in called through ours gave it first (a V8 built-in's, `at Object.toString
   * (<anonymous>)`: Blink's show none) is kept on top, as the built-in called directly shows it.
   */
  rethrow: (error: unknown, ours: unknown, ownFrame?: boolean) => never;
  /** What rethrow does to `error`'s stack, without the throw: for an error a promise of ours rejects with instead. */
  restack: (error: unknown, ours: unknown, ownFrame?: boolean) => void;
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
 * our function and what it called; a V8 built-in's own frame (Function.prototype.toString's), which the browser shows
 * on top, is put back there, where making the stack runs no code of the page's (no getter on the error's name or
 * message, no Error.prepareStackTrace: otherwise it stays out, and the page's hook runs only when it reads the stack). An error the page's own code threw from inside the built-in (a valueOf of an argument)
 * keeps its frames above ours, as the browser's stack has them, where our frames can be told from the page's (the
 * page's init script, not a worker's prelude, which shares the worker's script) and formatting runs no page code;
 * elsewhere it loses them too: still no frame of ours.
 *
 * Self-contained (nothing from outside its body but its argument): the device's worker prelude carries its source text.
 */
export function builtInErrors(g: typeof globalThis): BuiltInErrors {
  const ErrorType = g.Error; // DOMException inherits from it
  const capture = (ErrorType as unknown as { captureStackTrace?: (target: object, below: unknown) => void }).captureStackTrace;
  const then = g.Promise.prototype.then;
  const apply = g.Reflect.apply; // not then.call: a page may have replaced Function.prototype.call
  // The realm's own, taken before any page script ran: a page that replaced them sees no call of ours.
  const describeOwn = g.Reflect.getOwnPropertyDescriptor;
  const defineOwn = g.Reflect.defineProperty;
  const protoOf = g.Reflect.getPrototypeOf;
  const hasOwn = g.Object.prototype.hasOwnProperty;
  // Not `instanceof`: it looks Symbol.hasInstance up on Error, where a page may have defined its own.
  const hasInstance = g.Function.prototype[g.Symbol.hasInstance] as (this: unknown, value: unknown) => boolean;
  const isError = (value: unknown) => apply(hasInstance, ErrorType, [value]) as boolean;
  const sliceOf = g.String.prototype.slice;
  const indexOf = g.String.prototype.indexOf;
  const execOf = g.RegExp.prototype.exec; // test() would look exec up on the RegExp, where a page may have put its own
  const find = (text: string, what: string, from: number) => apply(indexOf, text, [what, from]) as number;
  const cut = (text: string, from: number, to: number) => apply(sliceOf, text, [from, to]) as string;
  /** Where the frame after `from` starts (`\n    at …`), or -1. */
  const nextFrame = (stack: string, from: number) => find(stack, '\n    at ', from);
  /** The first `n` frames of `frames` (which starts with one, or is empty). */
  const firstFrames = (frames: string, n: number) => {
    let at = 0;
    for (let i = 0; i < n && at >= 0; i++) at = nextFrame(frames, at + 1);
    return at < 0 ? frames : cut(frames, 0, at);
  };
  // A V8 built-in's frame: a name and `(<anonymous>)`, no line or column (a script's frame has them).
  const builtInFrame = /^ {4}at [^\n]* \(<anonymous>\)$/;
  const objectProto = g.Object.prototype;
  const functionProto = g.Function.prototype;
  const errorProtos: object[] = [];
  for (const name of ['Error', 'TypeError', 'RangeError', 'ReferenceError', 'SyntaxError', 'EvalError', 'URIError']) {
    const type = (g as unknown as Record<string, { prototype?: object } | undefined>)[name];
    if (type?.prototype) errorProtos[errorProtos.length] = type.prototype;
  }
  /** Whether `o` has `key` as its own accessor: reading it would run a function (a page's). */
  const accessor = (o: object, key: PropertyKey) => {
    const d = describeOwn(o, key);
    return d !== undefined && !apply(hasOwn, d, ['value']);
  };
  /** `o`'s own data value of `key` (undefined when it has none). */
  const dataOf = (o: object, key: PropertyKey): unknown => {
    const d = describeOwn(o, key);
    return d !== undefined && apply(hasOwn, d, ['value']) ? d.value : undefined;
  };
  // The `stack` V8 gives an error (an own accessor pair in this Chromium): one a page defined instead would run its
  // getter inside our frames when read.
  const stackShape = describeOwn(new ErrorType(), 'stack');
  const v8Stack = (error: object) => {
    const d = describeOwn(error, 'stack');
    if (!d || !stackShape) return false;
    if (apply(hasOwn, stackShape, ['value'])) return apply(hasOwn, d, ['value']);
    return d.get === stackShape.get && d.set === stackShape.set;
  };
  /**
   * Whether V8 formats `error`'s stack without running any code of the page's: its name and message, and
   * Error.prepareStackTrace, read through prototypes the realm made (no page's proxy or getter on the way).
   */
  const quietlyFormatted = (error: object) => {
    if (!v8Stack(error)) return false;
    if (protoOf(ErrorType) !== functionProto || protoOf(functionProto) !== objectProto) return false;
    // Indexed, not for-of: the array iterator is the page's to replace.
    const holders: object[] = [ErrorType, functionProto, objectProto];
    for (let i = 0; i < holders.length; i++) {
      if (accessor(holders[i]!, 'prepareStackTrace') || dataOf(holders[i]!, 'prepareStackTrace') !== undefined) return false;
    }
    if (accessor(ErrorType, 'stackTraceLimit')) return false;
    let o: object | null = error;
    for (let depth = 0; o !== null; depth++) {
      if (depth > 4 || accessor(o, 'name') || accessor(o, 'message')) return false;
      const next: object | null = protoOf(o);
      let known = next === null || next === objectProto;
      for (let i = 0; !known && i < errorProtos.length; i++) known = next === errorProtos[i];
      if (!known) return false;
      o = next;
    }
    return true;
  };
  /** `key` as `o` or the first prototype holding it has it, as data (undefined when none does, or as an accessor). */
  const inherited = (o: object | null, key: PropertyKey): unknown => {
    for (let depth = 0; o !== null && depth < 6; depth++, o = protoOf(o)) {
      const d = describeOwn(o, key);
      if (d !== undefined) return apply(hasOwn, d, ['value']) ? d.value : undefined;
    }
    return undefined;
  };
  /**
   * Where a quietly formatted stack's frames begin: after its first line, which V8 makes as Error.prototype.toString
   * does (`name: message`) and which may itself hold lines reading as frames (a message of the page's). 0 when that line
   * cannot be told (a name or message that is not a string, or a stack made before they changed): the first `at` line.
   */
  const framesFrom = (error: object, stack: string): number => {
    const name = inherited(error, 'name');
    const message = inherited(error, 'message');
    if ((name !== undefined && typeof name !== 'string') || (message !== undefined && typeof message !== 'string')) return 0;
    const n = name === undefined ? 'Error' : name;
    const m = message === undefined ? '' : message;
    const head = n === '' ? m : m === '' ? n : n + ': ' + m;
    if (cut(stack, 0, head.length) !== head) return 0;
    return stack.length === head.length || cut(stack, head.length, head.length + 1) === '\n' ? head.length : 0;
  };
  // Where this script is, as a frame of it reads: `<anonymous>:L:` for the page's init script, which has no URL. A
  // worker's prelude shares the worker's own script (its line 1 is the page's too): there it stays unknown.
  let oursAt: string | null = null;
  if (capture) {
    const probe: { stack?: string } = {};
    capture(probe, undefined);
    const stack = probe.stack;
    const first = typeof stack === 'string' ? nextFrame(stack, 0) : -1;
    const end = first < 0 ? -1 : nextFrame(stack!, first + 1);
    const line = first < 0 ? '' : cut(stack!, first + 1, end < 0 ? stack!.length : end);
    const found = apply(execOf, /\((<anonymous>:\d+:)\d+\)$/, [line]) as RegExpExecArray | null;
    if (found) oursAt = found[1]!;
  }
  /** Where a frame line's script is: what its last parentheses hold, or what follows `at ` (an anonymous function). */
  const whereOf = (line: string) => {
    let open = -1;
    for (let at = find(line, '(', 0); at >= 0; at = find(line, '(', at + 1)) open = at;
    return open < 0 ? cut(line, 7, line.length) : cut(line, open + 1, line.length - 1);
  };
  /**
   * The frames of `stack` above ours that are the page's: an error its own code threw inside a built-in we stand in
   * for (a valueOf, a toString, an iterator of an argument) starts with them, as the browser's stack does. Up to the
   * last frame of a page's script before our first; the built-ins' between it and ours are the ones we called (the
   * browser shows none there). Empty when the error did not come from the page's code; null when no frame of ours is in
   * it at all (made outside our frames, or deeper than Error.stackTraceLimit shows): then it is left as it is.
   */
  const pageFramesAbove = (stack: string, from: number): string | null => {
    if (oursAt === null) return '';
    let kept = -1;
    for (let at = nextFrame(stack, from); at >= 0;) {
      const end = nextFrame(stack, at + 1);
      const line = cut(stack, at + 1, end < 0 ? stack.length : end);
      const where = whereOf(line);
      if (find(where, oursAt, 0) === 0) return kept < 0 ? '' : cut(stack, nextFrame(stack, from), kept);
      if (apply(execOf, builtInFrame, [line]) === null) kept = end < 0 ? stack.length : end;
      at = end;
    }
    return null;
  };
  const restack = (error: unknown, ours: unknown, ownFrame = false): void => {
    if (!capture || !isError(error)) return;
    try {
      restackError(error as Error, ours, ownFrame);
    } catch {
      // an error whose stack cannot be made again (a frozen one): as it is
    }
  };
  const restackError = (thrown: Error, ours: unknown, ownFrame: boolean): void => {
    if (!capture) return;
    // The page's own frames above ours, where V8 formats the stack without running page code (below).
    const formatted: unknown = oursAt !== null && quietlyFormatted(thrown) ? thrown.stack : undefined;
    // Made again below with the same first line: its frames begin where they do here.
    const from = typeof formatted === 'string' ? framesFrom(thrown, formatted) : 0;
    const above = typeof formatted === 'string' ? pageFramesAbove(formatted, from) : '';
    if (above === null) return;
    if (above !== '') {
      capture(thrown, ours);
      const stack: unknown = thrown.stack;
      if (typeof stack !== 'string') return;
      const first = nextFrame(stack, from);
      const head = first < 0 ? stack : cut(stack, 0, first);
      let frames = above + (first < 0 ? '' : cut(stack, first, stack.length));
      const limit = dataOf(ErrorType, 'stackTraceLimit');
      if (typeof limit === 'number' && limit >= 0 && limit < 2 ** 31) frames = firstFrames(frames, limit - (limit % 1));
      // Assigned, not defined: the property keeps the shape V8 gave it (an accessor pair in this Chromium).
      thrown.stack = head + frames;
      return;
    }
    // Only where V8 formats the stack without running page code: formatting it here, inside our frames, would show a
    // page's getter or Error.prepareStackTrace frames of ours. (The text is then fixed at the throw: a page that changes
    // the message before it first reads the stack sees the old one. Rarer than a detector reading this frame.)
    let own: string | null = null;
    let ownFrom = 0;
    if (ownFrame && quietlyFormatted(thrown)) {
      const stack: unknown = thrown.stack;
      if (typeof stack === 'string') {
        ownFrom = framesFrom(thrown, stack);
        const first = nextFrame(stack, ownFrom);
        const end = first < 0 ? -1 : nextFrame(stack, first + 1);
        const line = first < 0 ? '' : cut(stack, first + 1, end < 0 ? stack.length : end);
        if (apply(execOf, builtInFrame, [line]) !== null) own = line;
      }
    }
    capture(thrown, ours);
    const stack: unknown = own === null ? undefined : thrown.stack;
    if (own !== null && typeof stack === 'string') {
      const first = nextFrame(stack, ownFrom);
      const head = first < 0 ? stack : cut(stack, 0, first);
      let frames = first < 0 ? '' : cut(stack, first, stack.length);
      // Within Error.stackTraceLimit, as the built-in's own stack is (its frame is one of them): V8 reads the limit
      // as a data property and truncates it.
      const limit = dataOf(ErrorType, 'stackTraceLimit');
      if (typeof limit === 'number' && limit >= 1 && limit < 2 ** 31) frames = firstFrames(frames, limit - (limit % 1) - 1);
      // Assigned, not defined: the property keeps the shape V8 gave it (an accessor pair in this Chromium).
      // Joined, not a template: the bundler would write a template's \n as a line break, and the prelude must stay one line
      // (a worker's script keeps its line numbers under it).
      thrown.stack = head + '\n' + own + frames;
    }
  };
  return {
    rethrow(error, ours, ownFrame = false) {
      restack(error, ours, ownFrame);
      throw error;
    },
    restack,
    callSite(ours) {
      const site: { stack?: string } = {};
      if (capture) capture(site, ours);
      return site;
    },
    restacked(result, site) {
      // Our promise, never the page's: a species of its own, so `then` reads no constructor a page put on Promise.prototype.
      if (typeof result === 'object' && result !== null)
        defineOwn(result, 'constructor', { __proto__: null, value: undefined } as PropertyDescriptor);
      return apply(then, result, [
        undefined,
        (error: unknown) => {
          const own: unknown = isError(error) ? (error as Error).stack : undefined;
          const called = site.stack;
          if (typeof own === 'string' && typeof called === 'string') {
            // Its own first line (Blink's, which is not always `name: message`), then the frames of the page's call.
            const head = nextFrame(own, 0);
            const frames = nextFrame(called, 0);
            const stack = (head < 0 ? own : cut(own, 0, head)) + (frames < 0 ? '' : cut(called, frames, called.length));
            // Assigned, not defined: the property keeps the shape V8 gave it (an accessor pair in this Chromium).
            (error as { stack?: string }).stack = stack;
          }
          throw error;
        },
      ]) as typeof result;
    },
  };
}
