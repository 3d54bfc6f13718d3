import http from 'node:http';
import net from 'node:net';

/**
 * A loopback HTTP CONNECT proxy for tests, standing in for a connection's upstream proxy (its exit): it records each
 * tunnel it was asked for (target and Proxy-Authorization), answers 407 without the expected credentials, and pipes
 * the rest. Anything but CONNECT is refused (the egress proxy only ever tunnels through it).
 */
export interface ConnectProxy {
  port: number;
  /** Every CONNECT, in order, whether or not it was allowed. */
  asked: { target: string; authorization: string | null; allowed: boolean }[];
  close(): Promise<void>;
}

export async function startConnectProxy(credentials?: { username: string; password: string }): Promise<ConnectProxy> {
  const expected = credentials ? `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}` : null;
  const asked: ConnectProxy['asked'] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((_req, res) => res.writeHead(405, { connection: 'close' }).end());
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const authorization = typeof req.headers['proxy-authorization'] === 'string' ? req.headers['proxy-authorization'] : null;
    const allowed = !expected || authorization === expected;
    asked.push({ target: String(req.url), authorization, allowed });
    client.on('error', () => client.destroy());
    if (!allowed) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const url = new URL(`http://${req.url}`);
    const upstream = net.connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) }, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.once('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    asked,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
