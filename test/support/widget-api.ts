/**
 * The connect widget's own API (/link/api/…) driven over HTTP, as the widget page drives it: a link token, then a
 * link session's steps (consent, provider, credentials). Update mode is a link token made with a connectionId.
 * (The same calls as test/connect/link-session.api.test.ts makes, for tests of other parts that need a real sign-in.)
 */
export interface WidgetResponse {
  status: number;
  body: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function call(baseUrl: string, method: string, path: string, opts: { headers?: Record<string, string>; body?: unknown } = {}) {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  return { status: res.status, body: (await res.json()) as WidgetResponse['body'] };
}

export async function createLinkToken(
  baseUrl: string,
  credentials: Record<string, string>,
  body: Record<string, unknown>,
): Promise<string> {
  const res = await call(baseUrl, 'POST', '/api/link-token', { headers: credentials, body });
  if (res.status !== 200) throw new Error(`link token: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.linkToken as string;
}

/** A widget session for a link token: one helper per step. */
export function widgetSession(baseUrl: string, linkToken: string) {
  const headers = { authorization: `Bearer ${linkToken}` };
  let id = '';
  const step = (name: string, body?: unknown) => call(baseUrl, 'POST', `/link/api/sessions/${id}/${name}`, { headers, body: body ?? {} });
  return {
    get id() {
      return id;
    },
    async start(env = 'sandbox'): Promise<WidgetResponse> {
      const res = await call(baseUrl, 'POST', '/link/api/sessions', { headers, body: { env } });
      if (res.status === 200) id = res.body.linkSessionId as string;
      return res;
    },
    consent: () => step('consent'),
    provider: (providerId: string) => step('provider', { providerId }),
    credentials: (username: string, password = 'pass_good') => step('credentials', { username, password }),
  };
}

/**
 * Update mode end to end: a link token for the connection, the widget's consent and the end user's sign-in. Resolves
 * with the widget's success (a public token and metadata); throws with the widget's answer otherwise.
 */
export async function reauthenticateThroughWidget(
  baseUrl: string,
  credentials: Record<string, string>,
  input: { connectionId: string; clientUserId: string; username: string; password?: string },
): Promise<{ publicToken: string; metadata: Record<string, unknown> }> {
  const token = await createLinkToken(baseUrl, credentials, { clientUserId: input.clientUserId, connectionId: input.connectionId });
  const w = widgetSession(baseUrl, token);
  const started = await w.start();
  if (started.status !== 200 || started.body.mode !== 'update')
    throw new Error(`widget start: ${started.status} ${JSON.stringify(started.body)}`);
  const consent = await w.consent();
  if (consent.status !== 200) throw new Error(`consent: ${consent.status} ${JSON.stringify(consent.body)}`);
  const done = await w.credentials(input.username, input.password);
  if (done.status !== 200) throw new Error(`credentials: ${done.status} ${JSON.stringify(done.body)}`);
  return done.body.success as { publicToken: string; metadata: Record<string, unknown> };
}
