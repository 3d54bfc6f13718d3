import http from 'node:http';
import net, { type AddressInfo } from 'node:net';

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

/**
 * Opens a WebSocket to `host` (`name:port`) through an egress proxy as Chromium does (a CONNECT tunnel, then the
 * upgrade to `/comms`), and resolves with the raw socket after the 101: the test then writes frames as it likes,
 * whole or cut short, which Chromium's WebSocket API never does.
 */
export async function openProxiedSocket(proxyPort: number, host: string): Promise<net.Socket> {
  const socket = net.connect(proxyPort, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  const answer = (request: string) =>
    new Promise<string>((resolve, reject) => {
      let text = '';
      const onData = (d: Buffer) => {
        text += d.toString('latin1');
        if (!text.includes('\r\n\r\n')) return;
        socket.off('data', onData);
        resolve(text);
      };
      socket.on('data', onData);
      socket.once('error', reject);
      socket.write(request);
    });
  const tunnel = await answer(`CONNECT ${host} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
  if (!/^HTTP\/1\.1 200/.test(tunnel)) throw new Error(`no tunnel: ${tunnel.slice(0, 200)}`);
  const upgrade = await answer(
    `GET /comms HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
  );
  if (!/^HTTP\/1\.1 101/.test(upgrade)) throw new Error(`no upgrade: ${upgrade.slice(0, 200)}`);
  return socket;
}
