import { batchedLists, type DocLists } from '../../server/sandbox/kit/batched-lists';
import type { SandboxDocRecord } from '../../server/store';

/** The lists of a request asked for in one tick are one read; every read goes to the store; no caller shares data. */
const at = new Date('2026-01-01T00:00:00Z');
const doc = (id: string, kind: string, data: Record<string, unknown> = {}): SandboxDocRecord => ({
  id,
  tenant: 't',
  site: 's',
  kind,
  data,
  createdAt: at,
  updatedAt: at,
});

function fakeRepo(rows: SandboxDocRecord[]) {
  const calls: string[][] = [];
  const repo: DocLists = {
    listKinds: async (_tenant, _site, kinds) => {
      calls.push([...kinds]);
      return rows.filter((r) => kinds.includes(r.kind));
    },
  };
  return { repo, calls };
}

it('reads the kinds asked for in one tick in one call, each caller getting its own kind in order', async () => {
  const { repo, calls } = fakeRepo([doc('p1', 'post'), doc('c1', 'comment'), doc('p2', 'post'), doc('x', 'other')]);
  const lists = batchedLists(repo, 't', 's');
  const [posts, comments, follows] = await Promise.all([lists('post'), lists('comment'), lists('follow')]);
  expect(calls).toEqual([['post', 'comment', 'follow']]);
  expect(posts.map((d) => d.id)).toEqual(['p1', 'p2']);
  expect(comments.map((d) => d.id)).toEqual(['c1']);
  expect(follows).toEqual([]);
});

it('reads again on every later tick (no cache: a read after a write sees it)', async () => {
  const rows = [doc('p1', 'post')];
  const { repo, calls } = fakeRepo(rows);
  const lists = batchedLists(repo, 't', 's');
  expect((await lists('post')).map((d) => d.id)).toEqual(['p1']);
  rows.push(doc('p2', 'post'));
  expect((await lists('post')).map((d) => d.id)).toEqual(['p1', 'p2']);
  expect(calls).toHaveLength(2);
});

it('gives a kind asked for twice in one tick its own copies, so one caller changing data in place leaves the other alone', async () => {
  const { repo } = fakeRepo([doc('n1', 'notification', { read: false })]);
  const lists = batchedLists(repo, 't', 's');
  const [a, b] = await Promise.all([lists('notification'), lists('notification')]);
  a[0]!.data.read = true;
  expect(b[0]!.data).toEqual({ read: false });
});
