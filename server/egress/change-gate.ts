/**
 * What an egress proxy asks and tells about what its context may change (see egress-proxy.ts): the gate that decides
 * which writes go out (and, with `approve`, holds them until someone decides), and what it reports of them.
 */
export interface EgressBlock {
  url: string;
  /**
   * `request` (plain http), `tunnel` (CONNECT), `write` (a request that may change something), `websocket` (a message),
   * `upstream` (the connection's upstream proxy refused or failed the connection).
   */
  kind: 'request' | 'tunnel' | 'write' | 'websocket' | 'upstream';
  reason: string;
  /** For a refused request (`request`): its method, which the page's view of it is matched by (refusal-join.ts). */
  method?: string;
  /** For writes and messages: who sent it, as the browser declares it (`Sec-Fetch-Dest`) and its referrer. */
  realm?: string;
  /**
   * For a WebSocket message read mode dropped: what it carried (text, bounded; a binary message as Latin-1, byte for
   * byte), and whether it was longer than what was kept. Never logged: it may hold anything the page had.
   */
  message?: { text: string; cut: boolean };
}

/** A request or WebSocket message that may change something, sent on to the provider. */
export interface ChangeSent {
  method: string;
  url: string;
  realm: string;
}

/**
 * What a context may change. `request` is asked for each request whose method is not GET, HEAD or OPTIONS (those only
 * read), in every realm; `webSocketMessages` for every data frame a page sends. A string refuses, with that reason.
 */
export interface ChangeGate {
  request(method: string, url: URL): string | null;
  webSocketMessages: string | null;
  /** Asked for each request that only reads (and each WebSocket opening): a string refuses it (none: all may read). */
  read?(url: URL): string | null;
  /**
   * Writes that pass `request` (and WebSocket data frames that pass `webSocketMessages`) wait here, unsent, before they
   * go out: resolve null to send it (exactly once), or a reason to refuse it (reported like a refusal, never sent).
   * `signal` aborts when the page gave up on it (its connection closed): it is then never sent whatever comes back.
   */
  approve?(write: HeldWrite, signal: AbortSignal): Promise<string | null>;
}

/** A write held for approval: what would be sent, whole (bounded: larger writes are refused, not cut). */
export interface HeldWrite {
  /** The request's method, or WEBSOCKET for a message. */
  method: string;
  url: string;
  realm: string;
  contentType: string | null;
  body: Buffer;
}
