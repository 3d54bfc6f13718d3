import { newId } from '../../server/domain/ids';
import { newDelivery } from '../../server/domain/webhooks/events.service';
import type { AgentRequestRecord, ConnectionRecord, KeysetPage, KeysetPosition, WebhookEventRecord } from '../../server/store';
import { decodeKeysetCursor, encodeKeysetCursor } from '../../server/store/keyset-cursor';
import { pendingAgentRequest } from '../support/agent-request-record';
import { describeEachStore } from '../support/app';

describe('keyset cursor', () => {
  const position = { createdAt: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)), id: newId('areq') };

  it('round-trips (createdAt, id) through an opaque base64url string', () => {
    const cursor = encodeKeysetCursor(position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeKeysetCursor(cursor, 'areq')).toStrictEqual(position);
  });

  it('keeps the format cursors already handed out use (base64url of "<ms>.<id>")', () => {
    const legacy = Buffer.from(`${position.createdAt.getTime()}.${position.id}`, 'utf8').toString('base64url');
    expect(encodeKeysetCursor(position)).toBe(legacy);
  });

  it('accepts the ids newId mints for every paged kind', () => {
    for (const prefix of ['areq', 'conn', 'whdl'] as const) {
      const p = { createdAt: new Date(0), id: newId(prefix) };
      expect(decodeKeysetCursor(encodeKeysetCursor(p), prefix)).toStrictEqual(p);
    }
  });

  it('refuses a cursor of another listing, and anything malformed', () => {
    const cursor = encodeKeysetCursor(position);
    expect(decodeKeysetCursor(cursor, 'whdl')).toBeNull();
    const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64url');
    for (const bad of [
      'nonsense',
      '',
      b64(`x.${position.id}`),
      b64(`${position.createdAt.getTime()}`),
      b64(`${position.createdAt.getTime()}.areq_short`),
      b64(`${position.createdAt.getTime()}.${position.id}x`),
      b64(`1234567890123456.${position.id}`), // more than 15 digits of milliseconds
      b64(`-1.${position.id}`),
      b64(`${position.createdAt.getTime()}.${position.id.toUpperCase()}`),
    ]) {
      expect(decodeKeysetCursor(bad, 'areq')).toBeNull();
    }
  });

  it('refuses to build a pattern from something that is not an id prefix', () => {
    expect(() => decodeKeysetCursor('x', 'areq|.*')).toThrow('not an id prefix');
  });
});

/** Every page of a listing, following `next` as a caller following nextCursor would. */
async function allPages<T extends { id: string }>(fetch: (after?: KeysetPosition) => Promise<KeysetPage<T>>) {
  const pages: string[][] = [];
  let after: KeysetPosition | undefined;
  for (;;) {
    const page = await fetch(after);
    pages.push(page.records.map((r) => r.id));
    if (!page.next) return pages;
    // The cursor is the last record of the page, carried through the codec as the API does.
    expect(page.next.id).toBe(page.records[page.records.length - 1].id);
    after = decodeKeysetCursor(encodeKeysetCursor(page.next), page.next.id.split('_')[0])!;
  }
}

/** The one keyset page of BaseRepository, through each listing that uses it, on both engines. */
describeEachStore('keyset pagination', (t) => {
  const owner = { organizationId: 'org_keyset', environment: 'sandbox' as const };
  const at = (s: number) => new Date(Date.UTC(2026, 0, 5, 0, 0, s));
  // Newest first by createdAt, then by id descending among equal createdAt.
  const newestFirst = <R extends { id: string; createdAt: Date }>(rows: R[]) =>
    [...rows].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1)).map((r) => r.id);

  it('pages connections newest first, ties broken by id, without gaps or repeats; a full last page ends the listing', async () => {
    const rows: ConnectionRecord[] = [1, 1, 1, 2, 3, 3].map((s) => ({
      id: newId('conn'),
      organizationId: owner.organizationId,
      environment: owner.environment,
      providerId: 'orbit',
      clientUserId: 'keyset-user',
      status: 'ACTIVE',
      sealedSession: null,
      sealedCredentials: null,
      device: null,
      sealedExitProxy: null,
      exitProxyLabel: null,
      createdAt: at(s),
      updatedAt: at(s),
      lastUsedAt: null,
      revokedAt: null,
    }));
    for (const r of rows) await t.store.repos.connections.insert(r);
    // Another owner's rows are never part of the listing.
    await t.store.repos.connections.insert({ ...rows[0], id: newId('conn'), environment: 'production' });

    const expected = newestFirst(rows);
    const pages = await allPages((after) => t.store.repos.connections.listOwned(owner, { limit: 2, after }));
    expect(pages).toStrictEqual([expected.slice(0, 2), expected.slice(2, 4), expected.slice(4, 6)]);
    expect((await allPages((after) => t.store.repos.connections.listOwned(owner, { limit: 4, after }))).flat()).toStrictEqual(expected);
    expect(await t.store.repos.connections.listOwned({ ...owner, organizationId: 'org_none' }, { limit: 2 })).toStrictEqual({
      records: [],
      next: null,
    });
  });

  it('pages agent requests with their filters applied before the page is cut', async () => {
    const org = { ...owner, organizationId: 'org_keyset_areq' };
    const ids: AgentRequestRecord[] = [];
    for (const [s, status] of [
      [1, 'PENDING'],
      [1, 'COMPLETED'],
      [2, 'PENDING'],
      [2, 'PENDING'],
      [4, 'FAILED'],
      [5, 'PENDING'],
    ] as const) {
      const record: AgentRequestRecord = pendingAgentRequest({
        ...org,
        connectionId: 'conn_keyset',
        action: 'Read',
        startingUrl: 'http://orbit.sandbox.localhost/',
        mode: 'read',
        status,
        createdAt: at(s),
      });
      await t.store.repos.agentRequests.insert(record);
      ids.push(record);
    }
    const pending = newestFirst(ids.filter((r) => r.status === 'PENDING'));
    const pages = await allPages((after) => t.store.repos.agentRequests.listOwned(org, { status: 'PENDING', limit: 3, after }));
    expect(pages).toStrictEqual([pending.slice(0, 3), pending.slice(3)]);
    const window = newestFirst(ids.filter((r) => r.createdAt >= at(2) && r.createdAt < at(5)));
    expect(
      (
        await allPages((after) => t.store.repos.agentRequests.listOwned(org, { createdFrom: at(2), createdBefore: at(5), limit: 1, after }))
      ).flat(),
    ).toStrictEqual(window);
  });

  it("pages one endpoint's webhook deliveries", async () => {
    const event: WebhookEventRecord = { id: newId('evt'), ...owner, type: 'AGENT_REQUEST.COMPLETED', payload: '{}', createdAt: at(0) };
    const endpointId = newId('whk');
    const deliveries = [1, 2, 2, 2, 3].map((s) => newDelivery(endpointId, event, at(s)));
    await t.store.repos.webhookDeliveries.insertMany([...deliveries, newDelivery(newId('whk'), event, at(2))]);
    const pages = await allPages((after) => t.store.repos.webhookDeliveries.listForEndpoint(endpointId, { limit: 2, after }));
    const expected = newestFirst(deliveries);
    expect(pages).toStrictEqual([expected.slice(0, 2), expected.slice(2, 4), expected.slice(4)]);
  });
});
