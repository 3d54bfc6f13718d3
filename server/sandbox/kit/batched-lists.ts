import DataLoader from 'dataloader';

import type { SandboxDocRecord } from '../../store';

/** What the batch reads from (SandboxDocRepository). */
export interface DocLists {
  listKinds(tenant: string, site: string, kinds: readonly string[]): Promise<SandboxDocRecord[]>;
}

/**
 * One tenant's lists of a site's documents, by kind, for one request: the lists its handlers ask for in the same tick
 * (a World: people, posts, comments, follows; the unread counts) go to the database as one statement, as a real site's
 * page query would. Batched only, never cached: a list read after a write sees it.
 */
export function batchedLists(repo: DocLists, tenant: string, site: string): (kind: string) => Promise<SandboxDocRecord[]> {
  const loader = new DataLoader<string, SandboxDocRecord[]>(
    async (kinds) => {
      const byKind = new Map<string, SandboxDocRecord[]>(kinds.map((k) => [k, []]));
      for (const r of await repo.listKinds(tenant, site, kinds)) byKind.get(r.kind)?.push(r);
      // A kind asked for twice in one tick gets its own copies the second time, as its own statement gave before:
      // a handler that changes a document's data in place never changes what another one is reading.
      const given = new Set<string>();
      return kinds.map((k) => {
        const rows = byKind.get(k)!;
        if (given.has(k)) return rows.map((r) => ({ ...r, data: structuredClone(r.data) }));
        given.add(k);
        return rows;
      });
    },
    { cache: false },
  );
  return (kind) => loader.load(kind);
}
