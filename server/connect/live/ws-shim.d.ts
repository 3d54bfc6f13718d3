/**
 * The few parts of the `ws` package (8.x) the live view uses. `ws` is installed (a dependency of jsdom) but its
 * type package is not: delete this file once `@types/ws` is a dev dependency.
 */
declare module 'ws' {
  import type { EventEmitter } from 'node:events';
  import type http from 'node:http';
  import type { Duplex } from 'node:stream';

  type RawData = Buffer | ArrayBuffer | Buffer[];

  class WebSocket extends EventEmitter {
    static readonly OPEN: 1;
    readonly readyState: 0 | 1 | 2 | 3;
    readonly bufferedAmount: number;
    send(data: string | Buffer, options: { binary?: boolean }, cb?: (err?: Error) => void): void;
    send(data: string | Buffer, cb?: (err?: Error) => void): void;
    close(code?: number, reason?: string): void;
    terminate(): void;
    on(event: 'message', listener: (data: RawData, isBinary: boolean) => void): this;
    on(event: 'close', listener: (code: number, reason: Buffer) => void): this;
    on(event: 'error', listener: (err: Error) => void): this;
    on(event: 'pong', listener: () => void): this;
    ping(): void;
  }

  class WebSocketServer extends EventEmitter {
    constructor(options: { noServer: true; maxPayload?: number; perMessageDeflate?: boolean });
    handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer, cb: (ws: WebSocket) => void): void;
    close(cb?: () => void): void;
  }

  export { type RawData, WebSocket, WebSocketServer };
}
