/** Calls to the example's own backend relay (examples/relay/server.ts); never to AgentLink directly. */
export interface RelayError {
  status: number;
  code: string;
  message: string;
}

export class RelayCallError extends Error {
  constructor(readonly detail: RelayError) {
    super(`${detail.code}: ${detail.message}`);
  }
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!res.ok) {
    const err = (json as { error?: { code?: string; message?: string } } | null)?.error;
    throw new RelayCallError({ status: res.status, code: err?.code ?? `HTTP_${res.status}`, message: err?.message ?? text.slice(0, 200) });
  }
  return json as T;
}

export interface ExchangeResult {
  access_token: string;
  connectionId: string;
  providerId: string;
  clientUserId: string;
  environment: string;
  status: string;
  [key: string]: unknown;
}

export interface Provider {
  providerId: string;
  name: string;
  slug: string;
  homeUrl: string;
}

/** While a request is NEEDS_USER: what its run waits for, and the link token that brings the user into it. */
export interface UserAction {
  reason: 'CODE' | 'CAPTCHA' | 'DEVICE_APPROVAL' | 'APPROVAL' | 'OTHER';
  message: string;
  expiresAt: string;
  linkToken: string;
  url: string;
  write: { method: string; url: string; fields: { name: string; value: string }[]; bodyBytes: number } | null;
}

export interface AgentRequestRecord {
  requestId: string;
  status: string;
  result?: unknown;
  error?: { code: string; message: string } | null;
  executionTimeMs?: number | null;
  userAction?: UserAction | null;
  [key: string]: unknown;
}

export const TERMINAL_STATUSES = ['COMPLETED', 'FAILED', 'CANCELED', 'TIMED_OUT'];

export const relay = {
  createLinkToken: (clientUserId: string, providerId?: string) =>
    call<{ linkToken: string }>('POST', '/api/link-token', providerId ? { clientUserId, providerId } : { clientUserId }),
  exchange: (publicToken: string) => call<ExchangeResult>('POST', '/api/exchange', { publicToken }),
  providers: () => call<{ providers: Provider[] }>('GET', '/api/providers'),
  createAgentRequest: (body: {
    accessToken: string;
    action: string;
    startingUrl: string;
    parameters: Record<string, unknown>;
    responseFormat: Record<string, unknown>;
    approval?: 'writes';
  }) => call<AgentRequestRecord>('POST', '/api/agent-requests', body),
  getAgentRequest: (requestId: string) => call<AgentRequestRecord>('GET', `/api/agent-requests/${encodeURIComponent(requestId)}`),
};
