import {
  AgentLinkAbortError,
  AgentLinkWaitTimeoutError,
  type AgentRequest,
  type AgentRunErrorCode,
  createAgentLinkClient,
  FINAL_AGENT_REQUEST_STATUSES,
  type HeldWrite,
  NotFoundError,
  type UserAction,
  waitForAgentRequest,
} from '@agentlink/client';

/**
 * waitForAgentRequest against a scripted fetch: each read answers the next status of the script. It resolves at a final
 * status, and at NEEDS_USER unless asked to wait until the end; a NEEDS_USER read (answered at once by the server) is
 * not repeated at once; timeoutMs and the signal end the wait.
 */
type Status = AgentRequest['status'];

const userAction: UserAction = {
  reason: 'APPROVAL',
  message: 'Approve sending the message',
  since: '2026-01-01T12:00:00.000Z',
  expiresAt: '2026-01-01T12:10:00.000Z',
  linkToken: 'link-sandbox-abc',
  url: 'https://agentlink.example.com/link?token=link-sandbox-abc',
  write: {
    id: 'hw_test',
    method: 'POST',
    url: 'https://orbit.example.com/api/messages',
    fields: [{ name: 'text', value: 'Hi' }],
    bodyBytes: 12,
  },
};

function record(status: Status): AgentRequest {
  return {
    requestId: 'areq_1',
    status,
    connectionId: 'conn_1',
    providerId: 'prov',
    environment: 'sandbox',
    action: 'Send a message',
    startingUrl: 'https://orbit.example.com/',
    parameters: {},
    responseFormat: {},
    timeoutMs: 60_000,
    mode: 'read_write',
    approval: 'writes',
    playbook: null,
    result: null,
    error: status === 'FAILED' ? { code: 'DENIED_BY_USER', message: 'denied' } : null,
    userAction: status === 'NEEDS_USER' ? userAction : null,
    warnings: [],
    createdAt: '2026-01-01T12:00:00.000Z',
    startedAt: null,
    completedAt: null,
    executionTimeMs: null,
    attempts: 1,
    trace: [],
    method: null,
    modelUsage: null,
  } as unknown as AgentRequest;
}

/** `onRead` runs as each read arrives (a test moves its stand-in clock there). */
function scripted(statuses: (Status | 404)[], onRead: () => void = () => undefined) {
  const reads: { url: URL }[] = [];
  const fetch = (async (input: string | URL | Request) => {
    reads.push({ url: new URL(String(input)) });
    onRead();
    const next = statuses.length > 1 ? statuses.shift()! : statuses[0]!;
    if (next === 404) {
      return new Response(
        JSON.stringify({ error: { type: 'NOT_FOUND', code: 'AGENT_REQUEST_NOT_FOUND', message: 'no', requestId: 'req_1' } }),
        {
          status: 404,
          headers: { 'content-type': 'application/json' },
        },
      );
    }
    return new Response(JSON.stringify(record(next)), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof globalThis.fetch;
  const client = createAgentLinkClient({
    baseUrl: 'https://agentlink.example.com',
    clientId: 'cli',
    clientSecret: 'sk',
    fetch,
    maxRetries: 0,
  });
  return { client, reads };
}

describe('waitForAgentRequest', () => {
  it('resolves at NEEDS_USER by default, reading with the longest waitMs', async () => {
    const { client, reads } = scripted(['RUNNING', 'NEEDS_USER']);
    const request = await waitForAgentRequest(client, 'areq_1', { pollIntervalMs: 0 });
    expect(request.status).toBe('NEEDS_USER');
    // Typed from the generated file: the user action and its held write.
    const write: HeldWrite | null | undefined = request.userAction?.write;
    expect(write?.fields).toEqual([{ name: 'text', value: 'Hi' }]);
    expect(request.userAction?.url).toBe(userAction.url);
    expect(reads.map((r) => `${r.url.pathname}?${r.url.searchParams}`)).toEqual([
      '/api/agent-requests/areq_1?waitMs=30000',
      '/api/agent-requests/areq_1?waitMs=30000',
    ]);
  });

  it('resolves at once at each final status', async () => {
    for (const status of FINAL_AGENT_REQUEST_STATUSES) {
      const { client, reads } = scripted([status]);
      await expect(waitForAgentRequest(client, 'areq_1', { until: 'final' })).resolves.toMatchObject({ status });
      expect(reads).toHaveLength(1);
    }
    const { client } = scripted(['FAILED']);
    const failed = await waitForAgentRequest(client, 'areq_1');
    const denied: AgentRunErrorCode = 'DENIED_BY_USER';
    expect(failed.error?.code).toBe(denied);
  });

  it("with until 'final', waits through NEEDS_USER, reading it again every pollIntervalMs, not at once", async () => {
    const { client, reads } = scripted(['NEEDS_USER', 'NEEDS_USER', 'RUNNING', 'COMPLETED']);
    // A timeoutMs under the longest waitMs, so that each read's waitMs (what is left: timeoutMs minus the time since the
    // wait began) tells when the client started it, on the client's own clock.
    const request = await waitForAgentRequest(client, 'areq_1', { until: 'final', pollIntervalMs: 200, timeoutMs: 20_000 });
    expect(request.status).toBe('COMPLETED');
    expect(reads).toHaveLength(4);
    // The client spaces the starts of its reads by the interval, however long each read took (to a timer's 1 ms).
    const left = reads.map((r) => Number(r.url.searchParams.get('waitMs')));
    const gaps = left.slice(1).map((l, i) => left[i]! - l);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(199);
  });

  it('gives up after timeoutMs with AgentLinkWaitTimeoutError carrying the last read; waitMs never exceeds what is left', async () => {
    // The clock stands still but for 20 ms per read: how many reads fit in the 150 ms does not depend on the machine.
    let now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const { client, reads } = scripted(['RUNNING'], () => (now += 20));
      const err = await waitForAgentRequest(client, 'areq_1', { timeoutMs: 150, pollIntervalMs: 40 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AgentLinkWaitTimeoutError);
      expect((err as AgentLinkWaitTimeoutError).agentRequest.status).toBe('RUNNING');
      expect((err as Error).message).toMatch(/still RUNNING after \d+ ms/);
      expect(reads.length).toBeGreaterThanOrEqual(2);
      for (const r of reads) expect(Number(r.url.searchParams.get('waitMs'))).toBeLessThanOrEqual(150);
    } finally {
      clock.mockRestore();
    }
  });

  it('stops when the signal fires while it waits between reads (AgentLinkAbortError)', async () => {
    const { client } = scripted(['NEEDS_USER']);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(waitForAgentRequest(client, 'areq_1', { until: 'final', signal: controller.signal })).rejects.toBeInstanceOf(
      AgentLinkAbortError,
    );
  });

  it('throws the errors of the reads as the client does', async () => {
    const { client } = scripted([404]);
    await expect(waitForAgentRequest(client, 'areq_1')).rejects.toBeInstanceOf(NotFoundError);
  });
});
