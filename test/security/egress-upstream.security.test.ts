import net from 'node:net';

import { AuthFailureThrottle } from '../../server/domain/auth-failures';
import { ManualClock } from '../../server/domain/clock';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { startEgressProxy } from '../../server/egress/egress-proxy';
import { viaProxy } from '../support/egress-proxy-client';

/**
 * What an allowed upstream (or whoever sits in front of it) may answer must never take the egress proxy, and with it
 * the whole AgentLink process, down: malformed status lines are answered 502 and the proxy keeps serving. And a
 * client id, which is not a secret, cannot be used by a stranger to lock its owner out of authenticating.
 */
interface RawUpstream {
  port: number;
  close(): Promise<void>;
}

/** A loopback server that answers every request with exactly these bytes. */
async function rawUpstream(answer: string): Promise<RawUpstream> {
  const server = net.createServer((socket) => {
    socket.once('data', () => socket.end(answer));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('egress: what an allowed upstream answers', () => {
  it.each([
    // The status is passed on without the upstream's reason phrase (Node writes the standard one).
    ['a control character in the reason phrase', 'HTTP/1.1 200 O\u0001K\r\ncontent-length: 2\r\n\r\nok', 200],
    ['a status below 100', 'HTTP/1.1 099 Odd\r\ncontent-length: 2\r\n\r\nok', 502],
  ])('refuses to be crashed by %s (the proxy answers and keeps serving)', async (_name, answer, expected) => {
    const bad = await rawUpstream(answer);
    const good = await rawUpstream('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok');
    const policyFor = (port: number) =>
      EgressPolicy.forProvider(
        { name: 'Orbit', homeUrl: `http://orbit.sandbox.localhost:${port}/`, allowedOrigins: ['orbit.sandbox.localhost'] },
        'sandbox',
      );
    const blocked: string[] = [];
    const proxyBad = await startEgressProxy({ policy: policyFor(bad.port), onBlocked: (b) => blocked.push(b.url) });
    const proxyGood = await startEgressProxy({ policy: policyFor(good.port), onBlocked: (b) => blocked.push(b.url) });
    try {
      expect(await viaProxy(proxyBad, `http://orbit.sandbox.localhost:${bad.port}/`)).toBe(expected);
      // Still alive: the same process answers the next request through a proxy.
      expect(await viaProxy(proxyGood, `http://orbit.sandbox.localhost:${good.port}/`)).toBe(200);
      expect(blocked).toEqual([]);
    } finally {
      await Promise.all([proxyBad.close(), proxyGood.close(), bad.close(), good.close()]);
    }
  });
});

describe('auth: failed-authentication budgets cannot lock an owner out', () => {
  it('refuses to let junk secrets from one address throttle the same client id from another address', () => {
    const throttle = new AuthFailureThrottle(new ManualClock(), { perClientId: 10, perAddress: 30, windowSeconds: 60 });
    for (let i = 0; i < 10; i++) throttle.recordFailure('cli_victim', '203.0.113.7');
    expect(throttle.retryAfter('cli_victim', '203.0.113.7')).toBe(60);
    expect(throttle.retryAfter('cli_victim', '198.51.100.20')).toBeNull();
  });
});
