import { AgentLinkResponseError } from './errors';
import type { HttpResponse } from './transport';

/**
 * What every client method returns: awaitable for the answer's body (a PromiseLike with catch and finally), with
 * `withResponse()` for its status, headers and request id. The request starts when the method is called.
 *
 * Not a Promise subclass on purpose: a subclass would settle its own promise as well as the one withResponse()
 * returns, and the one nobody awaited would report an unhandled rejection for every failed call.
 */
export class APIPromise<T> implements PromiseLike<T> {
  private data?: Promise<T>;

  constructor(private readonly response: Promise<HttpResponse<T>>) {}

  then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    this.data ??= this.response.then((r) => r.data);
    return this.data.then(onfulfilled, onrejected);
  }

  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.then(undefined, onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.then().finally(onfinally);
  }

  /** The body with the HTTP status, the headers and the x-request-id of the answer. */
  withResponse(): Promise<HttpResponse<T>> {
    return this.response;
  }
}

export interface Page<Item> {
  data: Item[];
  nextCursor: string | null;
}

/** The most pages one iteration follows: a bound against a server that never ends its list. */
export const MAX_PAGES = 10_000;

/**
 * The first page of a list (await it), and an async iterator over every item of every page (for await … of),
 * which follows nextCursor until the last page:
 *
 *   for await (const connection of agentlink.connections.listConnections({ query: { clientUserId: 'user-42' } })) { … }
 */
export class PagePromise<P extends Page<Item>, Item> extends APIPromise<P> implements AsyncIterable<Item> {
  constructor(
    first: Promise<HttpResponse<P>>,
    private readonly nextPage: (cursor: string) => Promise<HttpResponse<P>>,
  ) {
    super(first);
  }

  /** Every page, the first one included. */
  async *pages(): AsyncGenerator<P, void, undefined> {
    let page: P = await this;
    const seen = new Set<string>();
    for (let n = 1; ; n++) {
      yield page;
      const cursor = page.nextCursor;
      if (!cursor) return;
      if (seen.has(cursor) || n >= MAX_PAGES) {
        throw new AgentLinkResponseError(`The list did not end: cursor ${cursor} came back again.`, 200, null, '', null);
      }
      seen.add(cursor);
      page = (await this.nextPage(cursor)).data;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }
}
