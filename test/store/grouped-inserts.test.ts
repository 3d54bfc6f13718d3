import { newId } from '../../server/domain/ids';
import { hashToken } from '../../server/domain/tokens';
import type { AgentRequestRecord } from '../../server/store';
import { preparedSql } from '../../server/store/prepared-sql';
import { pendingAgentRequest } from '../support/agent-request-record';
import { describeEachStore } from '../support/app';
import { connectSandbox, createOrg } from '../support/helpers';

type On = Pick<AgentRequestRecord, 'organizationId' | 'environment' | 'connectionId' | 'providerId'>;

function pending(on: On, overrides: Partial<AgentRequestRecord> = {}): AgentRequestRecord {
  return pendingAgentRequest({
    ...on,
    parameters: { limit: 5, text: 'héllo ✓' },
    responseFormat: { name: 'string - Full name' },
    createdAt: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)),
    ...overrides,
  });
}

/**
 * Agent requests accepted at the same time are inserted together (one statement on SQLite, see GroupRunner and
 * PreparedTable.insertWhereMany): each row must still be written only under its own grant, read back exactly,
 * and an error must reach only the request that caused it.
 */
describeEachStore('grouped agent-request inserts', (t) => {
  async function granted() {
    const org = await createOrg(t);
    const conn = await connectSandbox(t, org);
    const hash = hashToken(conn.accessToken);
    const on: On = {
      organizationId: org.organizationId,
      environment: 'sandbox',
      connectionId: conn.connectionId,
      providerId: conn.providerId,
    };
    return { hash, on };
  }

  it('inserts concurrent requests each under its own grant check, whatever their shape', async () => {
    const { hash, on } = await granted();
    const other = await granted();
    const cases: { record: AgentRequestRecord; hash: string; inserted: boolean }[] = [
      { record: pending(on), hash, inserted: true },
      { record: pending(on, { approval: 'writes', playbook: 'orbit.send-message' }), hash, inserted: true },
      { record: pending(on, { organizationId: other.on.organizationId }), hash, inserted: false },
      { record: pending(on, { connectionId: other.on.connectionId }), hash, inserted: false },
      { record: pending(on), hash: hashToken('access-sandbox-unknown'), inserted: false },
      { record: pending(other.on), hash: other.hash, inserted: true },
      { record: pending(on, { environment: 'production' }), hash, inserted: false },
      { record: pending(on, { mode: 'read', timeoutMs: 5_000 }), hash, inserted: true },
    ];
    const sql = preparedSql(t.store.dataSource);
    const statements: string[] = [];
    const query = sql.query.bind(sql);
    const spy = jest.spyOn(sql, 'query').mockImplementation((text, params) => {
      if (text.startsWith('INSERT INTO "agent_requests"')) statements.push(text);
      return query(text, params);
    });
    try {
      const repo = t.store.repos.agentRequests;
      // Twice over: the first insert runs at once, the rest wait for it and go together.
      const outcomes = await Promise.all(
        [...cases, ...cases.map((c) => ({ ...c, record: { ...c.record, id: newId('areq') } }))].map((c) =>
          repo.insertIfGranted(c.record, c.hash),
        ),
      );
      expect(outcomes).toStrictEqual([...cases, ...cases].map((c) => c.inserted));
      for (const c of cases) expect(await repo.findById(c.record.id)).toStrictEqual(c.inserted ? c.record : null);
    } finally {
      spy.mockRestore();
    }
    if (t.dialect === 'sqlite') {
      expect(statements.length).toBeLessThan(cases.length * 2);
      expect(statements.some((s) => s.includes(' UNION ALL '))).toBe(true);
    }
  });

  it('answers an error only to the request that caused it; the others of its group are inserted', async () => {
    const { hash, on } = await granted();
    const repo = t.store.repos.agentRequests;
    const existing = pending(on);
    expect(await repo.insertIfGranted(existing, hash)).toBe(true);
    const first = pending(on);
    const group = [pending(on), pending(on, { id: existing.id, action: 'a duplicate id' }), pending(on)];
    const [head, ...rest] = [first, ...group].map((r) =>
      repo.insertIfGranted(r, hash).then(
        (v) => ({ ok: true, v }),
        (err: Error) => ({ ok: false, v: err.message }),
      ),
    );
    expect(await head).toStrictEqual({ ok: true, v: true });
    const outcomes = await Promise.all(rest);
    expect(outcomes[0]).toStrictEqual({ ok: true, v: true });
    expect(outcomes[1]!.ok).toBe(false);
    expect(String(outcomes[1]!.v)).toMatch(/unique|duplicate/i);
    expect(outcomes[2]).toStrictEqual({ ok: true, v: true });
    expect(await repo.findById(group[0]!.id)).toStrictEqual(group[0]);
    expect(await repo.findById(group[2]!.id)).toStrictEqual(group[2]);
    expect((await repo.findById(existing.id))?.action).toBe(existing.action);
  });
});
