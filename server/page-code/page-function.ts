import { pageBundle, type PageEntry } from './page-bundle';

/** A function that runs in a page (its parameters are whatever Playwright passes: the element, the argument). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type PageFn = (...args: any[]) => unknown;

/**
 * A `function` entry's default export (or one member of it, when the export is an object of functions) as a
 * Playwright pageFunction, for page.evaluate, locator.evaluate and an element handle's evaluate/evaluateHandle.
 *
 * Playwright sends `String(pageFunction)` to the page, evaluates it there and calls the result with its arguments
 * (the element first, for a locator or a handle). A string pageFunction would not do: Playwright evaluates a
 * string as an expression and does not call the function it yields, nor pass it the element. So this is a stand-in
 * function whose text is the bundle (made on first use, once per process): typed as the page-side function
 * (`pageFunction<typeof fn>(…)`, a type-only import of the page module), never called in Node.
 */
export function pageFunction<F extends PageFn>(entry: PageEntry, member?: string): F {
  let source: string | undefined;
  const stub = () => {
    throw new Error(`${entry.file}${member ? ` (${member})` : ''} runs in a browser page, not in Node`);
  };
  Object.defineProperty(stub, 'toString', {
    value: () => (source ??= member === undefined ? pageBundle(entry) : `(${pageBundle(entry)})[${JSON.stringify(member)}]`),
  });
  return stub as unknown as F;
}

/** The members of an entry whose default export is an object of functions, each a pageFunction (see above). */
export function pageFunctions<M extends Record<string, PageFn>>(entry: PageEntry): M {
  const made = new Map<string, PageFn>();
  return new Proxy({} as M, {
    get(_, key) {
      if (typeof key !== 'string') return undefined;
      let fn = made.get(key);
      if (!fn) made.set(key, (fn = pageFunction(entry, key)));
      return fn;
    },
  });
}

/**
 * An expression that calls a `function` entry's default export with these arguments (JSON): for CDP's
 * Runtime.evaluate and for an evaluate that must be one expression. The arguments are part of the text, so the
 * page compiles it anew each time; a pageFunction, whose text does not change, is cheaper where it can be used.
 */
export function callExpression(entry: PageEntry, ...args: unknown[]): string {
  return `(${pageBundle(entry)})(${args.map((a) => (a === undefined ? 'undefined' : JSON.stringify(a))).join(', ')})`;
}
