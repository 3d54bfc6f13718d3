import type { WorkerKit } from './device-workers.page';

/**
 * A service worker may answer a worker's script itself (from its Cache, or by its own fetch, which Chromium sends as
 * `Sec-Fetch-Dest: empty`): that script never passed the egress proxy as a worker's. In the service worker's realm
 * (started with the prelude by the proxy), `respondWith` for a worker's or shared worker's script puts the prelude in
 * a JavaScript answer (200, not opaque, not redirected: the worker's URL stays the site's), unless it has one already
 * (a script the proxy prefixed, kept in the Cache).
 */
export function preludeServedWorkers(kit: WorkerKit): void {
  const { g, method, preluded, hasPrelude, text } = kit;
  const FetchEventType = g.FetchEvent as { prototype?: object } | undefined;
  const ResponseType = g.Response as typeof Response | undefined;
  const HeadersType = g.Headers as typeof Headers | undefined;
  const RequestType = g.Request as typeof Request | undefined;
  const PromiseType = g.Promise;
  if (!FetchEventType?.prototype || !ResponseType || !HeadersType || !RequestType) return;
  // Everything below is the realm's own, taken before the service worker's script ran: a getter, method or species a
  // script replaced since sees no call of ours (device-workers.page.ts, Original). Awaited, not then(): an await
  // looks no species up.
  const apply = g.Reflect.apply;
  const define = Object.defineProperty;
  const getterOf = (proto: object, name: string) => Object.getOwnPropertyDescriptor(proto, name)?.get;
  const responses = ResponseType.prototype;
  const statusOf = getterOf(responses, 'status');
  const statusTextOf = getterOf(responses, 'statusText');
  const redirectedOf = getterOf(responses, 'redirected');
  const bodyUsedOf = getterOf(responses, 'bodyUsed');
  const typeOf = getterOf(responses, 'type');
  const headersOf = getterOf(responses, 'headers');
  const textOf = responses.text;
  const headerGet = HeadersType.prototype.get;
  const headerForEach = HeadersType.prototype.forEach;
  const requestOf = getterOf(FetchEventType.prototype, 'request');
  const destinationOf = getterOf(RequestType.prototype, 'destination');
  if (!statusOf || !statusTextOf || !redirectedOf || !bodyUsedOf || !typeOf || !headersOf || !requestOf || !destinationOf) return;
  const read = (get: (this: unknown) => unknown, self: unknown) => apply(get, self, []);
  // The WHATWG JavaScript MIME types (as worker-prelude.ts lists them), parameters aside.
  const scriptType =
    /^\s*(?:application\/(?:x-)?(?:ecma|java)script|text\/(?:(?:x-)?(?:ecma|java)script|javascript1\.[0-5]|jscript|livescript))\s*(?:;|$)/i;
  const dropped = ['content-length', 'content-encoding', 'etag'];
  const promiseThen = PromiseType.prototype.then;
  /**
   * A promise of ours made to be taken by an await or the browser with nothing looked up that a script could have
   * replaced: no constructor (so no species is asked for) and the realm's own then, both its own properties.
   */
  const ours = <T>(promise: Promise<T>): Promise<T> => {
    define(promise, 'constructor', { value: undefined, writable: true, configurable: true });
    define(promise, 'then', { value: promiseThen, writable: true, configurable: true });
    return promise;
  };
  // One async function from the script's answer to ours: each resolution with an object looks its `then` up.
  const withPrelude = async (pending: unknown): Promise<unknown> => {
    // Its rejection is the browser's to handle, as without us. Left: the await reads its constructor once (where a
    // script replaced Promise.prototype.constructor with a getter, it sees that read: the browser's own reaction reads
    // nothing), and the answer ours resolves to has its `then` looked up once (any promise resolved with an object does).
    const answer = await pending;
    try {
      // A Response (its own status getter answers: no instanceof, which a script's Symbol.hasInstance would see).
      if (read(statusOf, answer) !== 200 || read(redirectedOf, answer) || read(bodyUsedOf, answer)) return answer;
      const type = read(typeOf, answer);
      if (type !== 'basic' && type !== 'cors' && type !== 'default') return answer;
      const headers = read(headersOf, answer);
      const contentType = apply(headerGet, headers, ['content-type']) as string | null;
      if (text.match(scriptType, contentType ?? '') === null) return answer;
      // The headers as a record (an object with no iterator: a Headers object would be read through its own).
      const kept = { __proto__: null } as unknown as Record<string, string>;
      apply(headerForEach, headers, [
        (value: string, name: string) => {
          if (name !== dropped[0] && name !== dropped[1] && name !== dropped[2]) kept[name] = value;
        },
      ]);
      // A null-prototype dictionary: the constructor reads its members, and no getter a script put on Object.prototype runs.
      const init = { __proto__: null, status: 200, statusText: read(statusTextOf, answer), headers: kept };
      // Read whole, not through a clone (a clone's tee reads through promise reactions a script can see): from here on
      // the answer is ours, with the prelude once.
      const script = await ours(apply(textOf, answer, []) as Promise<string>);
      return new ResponseType(hasPrelude(script) ? script : preluded(script), init as unknown as ResponseInit);
    } catch {
      return answer; // not a Response, or unreadable: the service worker's own answer goes on
    }
  };
  method(FetchEventType.prototype, 'respondWith', (self, args, original) => {
    let destination: unknown;
    try {
      destination = read(destinationOf, read(requestOf, self));
    } catch {
      return original(args); // not a FetchEvent: the browser's own TypeError
    }
    if (!args.length || (destination !== 'worker' && destination !== 'sharedworker')) return original(args);
    // Ours, as the browser takes it, reads as the realm's own promise: its constructor and then are its own (ours()).
    return original([ours(withPrelude(args[0]))]);
  });
}
