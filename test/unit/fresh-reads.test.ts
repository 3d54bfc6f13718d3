import { FreshReads } from '../../server/domain/fresh-reads';

/** A store whose reads the test completes one by one; each read answers the value current when it STARTED. */
function slowStore() {
  let value = 'v1';
  const started: { at: string; finish: () => void }[] = [];
  const reads = new FreshReads<string, string>(
    (key) =>
      new Promise((resolve) => {
        const seen = `${key}:${value}`;
        started.push({ at: seen, finish: () => resolve(seen) });
      }),
  );
  let finished = 0;
  /** Completes the oldest read still running, then lets the callers' continuations run. */
  const finishNext = async () => {
    started[finished++]?.finish();
    await new Promise((r) => setImmediate(r));
  };
  return { reads, started, set: (v: string) => (value = v), finishNext };
}

describe('FreshReads', () => {
  it('never answers a caller with a read that started before it asked: it gets the next read, shared with the others', async () => {
    const s = slowStore();
    const first = s.reads.get('org');
    expect(s.started).toHaveLength(1);
    // A write commits while the first read runs; every caller from now on must see it.
    s.set('v2');
    const late = [s.reads.get('org'), s.reads.get('org'), s.reads.get('org')];
    expect(s.started).toHaveLength(1); // they wait: joining the running read could answer v1
    await s.finishNext();
    expect(await first).toBe('org:v1');
    expect(s.started).toHaveLength(2); // one more read for all three
    await s.finishNext();
    expect(await Promise.all(late)).toStrictEqual(['org:v2', 'org:v2', 'org:v2']);
  });

  it('reads each key on its own, and starts afresh once nothing runs', async () => {
    const s = slowStore();
    const a = s.reads.get('a');
    const b = s.reads.get('b');
    expect(s.started.map((r) => r.at)).toStrictEqual(['a:v1', 'b:v1']);
    await s.finishNext();
    await s.finishNext();
    expect([await a, await b]).toStrictEqual(['a:v1', 'b:v1']);
    s.set('v3');
    expect(await Promise.race([s.reads.get('a'), s.finishNext().then(() => 'late')])).toBe('a:v3');
  });

  it('passes a failed read to its callers and reads again for the next ones', async () => {
    let n = 0;
    const reads = new FreshReads<string, number>(async () => {
      n += 1;
      if (n === 1) throw new Error('database gone');
      return n;
    });
    await expect(reads.get('k')).rejects.toThrow('database gone');
    expect(await reads.get('k')).toBe(2);
  });
});
