import http from 'node:http';

/**
 * A raw WebSocket upgrade request to a loopback server with the given Host and Origin headers: resolves with the
 * status (101 = the socket opened, anything else is the refusal's status). The socket is closed at once.
 */
export function socketUpgradeStatus(port: number, path: string, headers: { host?: string; origin?: string }): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      path,
      headers: {
        host: headers.host ?? `localhost:${port}`,
        ...(headers.origin === undefined ? {} : { origin: headers.origin }),
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    req.setTimeout(10_000, () => req.destroy(new Error('upgrade timed out')));
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      resolve(101);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}
