import net from 'node:net';

/**
 * Chaining the egress proxy to an upstream proxy (a connection's exit: a residential or office proxy, so the
 * provider sees one stable address for the account). Every connection the egress proxy makes, plain http and
 * tunnelled alike, becomes `CONNECT <address>:<port>` to the upstream proxy, where the address is the one the
 * egress policy already resolved and approved: the upstream proxy resolves nothing and cannot be steered anywhere
 * the policy did not decide. Through the tunnel the egress proxy then speaks exactly as it does directly (TLS to
 * the site, verified here). Plain http CONNECT proxies only: an https:// proxy (TLS to the proxy itself) is refused
 * when it is configured.
 */
export interface UpstreamProxy {
  /** Host name or IP literal (IPv6 without brackets). */
  host: string;
  port: number;
  /** Proxy-Authorization: Basic, when both are given. */
  username?: string;
  password?: string;
}

/** The upstream proxy refused or failed a tunnel; the message is ours (a status code, never its body). */
export class UpstreamProxyError extends Error {
  override name = 'UpstreamProxyError';
}

/** The proxy's answer to CONNECT is a status line and headers; anything longer is not a proxy we talk to. */
const MAX_ANSWER_HEAD = 16 * 1024;

const authorityOf = (address: string, port: number) => `${net.isIPv6(address) ? `[${address}]` : address}:${port}`;

export function proxyAuthorization(proxy: UpstreamProxy): string | null {
  if (proxy.username === undefined || proxy.password === undefined) return null;
  return `Basic ${Buffer.from(`${proxy.username}:${proxy.password}`, 'utf8').toString('base64')}`;
}

/**
 * A TCP stream to `target` through the upstream proxy at `via` (its checked address). Resolves once the proxy
 * answered 200 to CONNECT; bytes the proxy sent after its answer stay in the stream.
 */
export function openUpstreamTunnel(
  proxy: UpstreamProxy,
  via: { address: string; family: number },
  target: { address: string; port: number },
  timeoutMs: number,
): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: via.address, family: via.family, port: proxy.port });
    socket.setNoDelay(true);
    let head = Buffer.alloc(0);
    const fail = (why: string) => {
      cleanup();
      socket.destroy();
      reject(new UpstreamProxyError(`the upstream proxy ${why}`));
    };
    const timer = setTimeout(() => fail(`did not open a tunnel within ${timeoutMs} ms`), timeoutMs);
    const onError = (err: NodeJS.ErrnoException) => fail(`could not be reached (${err.code ?? 'error'})`);
    const onClose = () => fail('closed the connection before answering');
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > MAX_ANSWER_HEAD) fail('sent an answer too long to be a CONNECT answer');
        return;
      }
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head.subarray(0, Math.min(end, 200)).toString('latin1'))?.[1];
      if (status !== '200') return fail(status ? `answered ${status} to CONNECT` : 'did not answer like an HTTP proxy');
      cleanup();
      const rest = head.subarray(end + 4);
      if (rest.length) socket.unshift(rest);
      resolve(socket);
    };
    const cleanup = () => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('error', onError);
      socket.off('close', onClose);
    };
    socket.on('data', onData);
    socket.on('error', onError);
    socket.on('close', onClose);
    socket.once('connect', () => {
      const authority = authorityOf(target.address, target.port);
      const auth = proxyAuthorization(proxy);
      socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth ? `Proxy-Authorization: ${auth}\r\n` : ''}\r\n`);
    });
  });
}
