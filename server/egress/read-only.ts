/**
 * Which requests can only read. A request reads when its method is GET or HEAD, or it is a CORS preflight (OPTIONS
 * naming Access-Control-Request-Method), AND it carries no body AND no method-override header. Everything else may
 * change something: in read mode it is refused, in read_write mode it is counted as a change sent.
 *
 * Why not "GET, HEAD and OPTIONS" alone: a same-origin page may send OPTIONS with a body without any preflight, and
 * handlers that ignore the method (Express `app.all`, many PHP and Django views) would act on it; frameworks read
 * `X-HTTP-Method-Override` and its kin as the real method (Rails, Express's method-override, ASP.NET).
 */
export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

const METHOD_OVERRIDES = ['x-http-method-override', 'x-http-method', 'x-method-override'];

export function hasBody(headers: RequestHeaders): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && String(length).trim() !== '0';
}

/** `headers` with lower-case names, as Node and Playwright give them. */
export function isReadOnlyRequest(method: string, headers: RequestHeaders): boolean {
  const m = method.toUpperCase();
  const reads = m === 'GET' || m === 'HEAD' || (m === 'OPTIONS' && headers['access-control-request-method'] !== undefined);
  return reads && !hasBody(headers) && !METHOD_OVERRIDES.some((h) => headers[h] !== undefined);
}
