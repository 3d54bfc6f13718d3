import type net from 'node:net';
import type { Duplex } from 'node:stream';

import { ClientFrameFilter, type ClientMessage, ClientMessageReader, maskedFrame, OPCODE_CLOSE } from './websocket-frames';
import { HOLD_LIMIT_BYTES, TOO_LARGE_TO_HOLD } from './write-hold';

/**
 * Relays an upgraded WebSocket between the page and the provider: the provider's frames as they are, the page's
 * through the change gate. Three ways, by what the gate says of messages: refused (read mode: data frames dropped,
 * control payloads stripped), held (each message waits for `approve`), or sent and counted as they stream.
 */
export interface WebSocketRelay {
  /** The browser's side, after its handshake. */
  page: net.Socket;
  /** The provider's side, after its 101. */
  upstream: net.Socket;
  /** What the page sent after its handshake, before the relay began. */
  head: Buffer;
  /** Read mode: every data frame is dropped, with this reason. */
  refuseMessages: string | null;
  /** Each message waits here, unsent, until approved (ChangeGate.approve, the message bound in). */
  approve?(payload: Buffer, signal: AbortSignal): Promise<string | null>;
  /** A message is being sent on. */
  onSent(): void;
  /**
   * A message was refused: reported, for the run's trace. In read mode, each dropped message is reported with what it
   * carried (at most MESSAGE_KEPT bytes, `cut` when longer), for the run to judge whether it was the run's doing.
   */
  onRefused(reason: string, message?: { payload: Buffer; binary: boolean; cut: boolean }): void;
  /** The page's stream is not WebSocket framing the proxy can follow: reported; the connection is closed. */
  onBroken(reason: string): void;
}

/** How much of a message read mode drops is kept to judge what it carried (as a blocked request's body). */
export const MESSAGE_KEPT = 64 * 1024;

/** A relayed WebSocket, as its proxy keeps it while it is open. */
export interface RelayedSocket {
  /**
   * Read mode: a message the page began and has not finished is reported now as unreadable (cut), without waiting for
   * the socket to close (ClientFrameFilter.reportUnfinished), so the run is judged with it. Nothing otherwise.
   */
  reportUnfinished(): void;
}

export function relayWebSocket(relay: WebSocketRelay): RelayedSocket {
  const { page, upstream } = relay;
  upstream.pipe(page);
  page.on('close', () => upstream.destroy());
  upstream.on('close', () => page.destroy());
  upstream.on('error', () => page.destroy());
  // A held message is sent only once whole and approved: one left unfinished is never sent, and approval runs are
  // judged by their person, not by what they left unfinished.
  if (relay.approve && !relay.refuseMessages) {
    relayHeld(relay, relay.approve);
    return { reportUnfinished: () => undefined };
  }
  return relayStreamed(relay);
}

const closeBoth = (relay: WebSocketRelay) => {
  relay.page.destroy();
  relay.upstream.destroy();
};

/** Frames pass (or are dropped) as they stream, never buffered: the page is read no faster than the provider reads. */
function relayStreamed(relay: WebSocketRelay): RelayedSocket {
  const { page, upstream, refuseMessages } = relay;
  /** The opcode of the message being dropped (a continuation keeps its message's). */
  let dropping = 0;
  const filter = new ClientFrameFilter({
    // In read mode a control frame keeps its meaning and loses its payload (a close reason is 123 bytes of text).
    stripControlPayloads: refuseMessages !== null,
    // Every dropped message is reported with what it carried: the run judges each (a page's own subscribe at load is
    // not the run's doing; a parameter sent away is).
    ...(refuseMessages
      ? {
          dropped: {
            limit: MESSAGE_KEPT,
            onMessage: (payload: Buffer, cut: boolean) => relay.onRefused(refuseMessages, { payload, binary: dropping === 2, cut }),
          },
        }
      : {}),
    onDataFrame: (opcode) => {
      if (refuseMessages) {
        if (opcode !== 0) dropping = opcode;
        return false;
      }
      // A continuation carries on a message already counted.
      if (opcode !== 0) relay.onSent();
      return true;
    },
  });
  const read = (chunk: Buffer) => {
    let flowing = true;
    for (const part of filter.push(chunk)) flowing = upstream.write(part) && flowing;
    // The page may send faster than the provider reads: wait for the upstream rather than hold it all in memory.
    if (!flowing) {
      page.pause();
      upstream.once('drain', () => page.resume());
    }
    if (filter.broken) {
      relay.onBroken(filter.broken);
      closeBoth(relay);
    }
  };
  if (relay.head.length) read(relay.head);
  page.on('data', read);
  // A message the page began and never finished (its socket closed mid-frame, by the page or the provider) is reported
  // as unreadable: otherwise a page could send all but the end of a message and go unjudged.
  if (refuseMessages) {
    page.once('end', () => filter.end());
    page.once('close', () => filter.end());
  }
  return { reportUnfinished: () => filter.reportUnfinished() };
}

/**
 * Each data message waits, whole and unsent, until `approve` decides; the page's frames go out strictly in order (a
 * message waits for the ones before it; one question at a time). Pings and pongs pass at once: a provider that pings
 * while a message waits for a person would otherwise drop the connection. A close waits its turn, so a page's
 * `send(); close()` still sends the message first. A refusal closes the WebSocket, both sides: the page must not go
 * on as though the message had been delivered. When either side closes, nothing more is sent, whatever comes back.
 */
function relayHeld(relay: WebSocketRelay, approve: NonNullable<WebSocketRelay['approve']>): void {
  const { page, upstream } = relay;
  const reader = new ClientMessageReader(HOLD_LIMIT_BYTES);
  const gone = new AbortController();
  const end = () => {
    gone.abort();
    closeBoth(relay);
  };
  // The page gave up when its side ends: a plain tunnel's socket stays half open after the page's FIN.
  page.once('end', () => gone.abort());
  page.once('close', () => gone.abort());
  upstream.once('close', () => gone.abort());
  /** Bytes read from the page and not yet handed to the provider (or dropped). */
  let waiting = 0;
  let turn = Promise.resolve();
  // Memory stays bounded: the page is read only while less than the hold limit waits and the provider keeps up.
  const regulate = () => {
    if (waiting >= HOLD_LIMIT_BYTES || upstream.writableNeedDrain) page.pause();
    else if (page.isPaused()) page.resume();
  };
  upstream.on('drain', regulate);

  const deliver = async (message: ClientMessage) => {
    if (gone.signal.aborted) return;
    if (message.kind === 'control') return written(upstream, message.frame);
    const why = await approve(message.payload, gone.signal);
    if (gone.signal.aborted) return;
    if (why !== null) {
      relay.onRefused(why);
      return end();
    }
    relay.onSent();
    return written(upstream, maskedFrame(message.opcode, message.payload));
  };
  const read = (chunk: Buffer) => {
    for (const message of reader.push(chunk)) {
      if (message.kind === 'control' && message.opcode !== OPCODE_CLOSE) {
        upstream.write(message.frame);
        continue;
      }
      const size = message.kind === 'data' ? message.payload.length : message.frame.length;
      waiting += size;
      turn = turn
        .then(() => deliver(message))
        .catch(end)
        .finally(() => {
          waiting -= size;
          regulate();
        });
    }
    if (reader.oversized) relay.onRefused(TOO_LARGE_TO_HOLD);
    if (reader.broken) relay.onBroken(reader.broken);
    if (reader.oversized || reader.broken) end();
    else regulate();
  };
  if (relay.head.length) read(relay.head);
  page.on('data', read);
}

/** Resolves once `bytes` are handed on and the stream can take more (or it closed: nothing more goes anyway). */
function written(stream: Duplex, bytes: Buffer): Promise<void> {
  return new Promise((resolve) => {
    if (stream.write(bytes)) return resolve();
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.once('drain', done);
    stream.once('close', done);
  });
}
