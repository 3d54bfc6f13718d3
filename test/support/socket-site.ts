import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { type WebSocket, WebSocketServer } from 'ws';

/**
 * A loopback site with a WebSocket server that records every message it receives, for the read-mode attack tests
 * (what must never reach the provider). `onClient` may greet each socket or drop it; `close` ends every socket too.
 */
export interface SocketSite {
  server: http.Server;
  wss: WebSocketServer;
  port: number;
  close(): Promise<void>;
}

export async function startSocketSite(opts: {
  handler: http.RequestListener;
  /** Where each message received is pushed, as text. */
  received: string[];
  onClient?: (client: WebSocket) => void;
}): Promise<SocketSite> {
  const server = http.createServer(opts.handler);
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) =>
    wss.handleUpgrade(req, socket, head, (client) => {
      client.on('message', (data) => opts.received.push(String(data)));
      opts.onClient?.(client);
    }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    server,
    wss,
    port: (server.address() as AddressInfo).port,
    async close() {
      for (const c of wss.clients) c.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
