import { GroupRunner } from '../../server/store/group-runner';

/** A run that records each group it was given and answers when the test says so. */
function recordingRunner(max: number) {
  const groups: number[][] = [];
  const pending: (() => void)[] = [];
  const runner = new GroupRunner<number, number>(async (items) => {
    groups.push(items);
    await new Promise<void>((resolve) => pending.push(resolve));
    return items.map((i) => (i < 0 ? { status: 'rejected', reason: new Error(`bad ${i}`) } : { status: 'fulfilled', value: i * 10 }));
  }, max);
  const release = async () => {
    await new Promise((r) => setImmediate(r));
    pending.shift()?.();
    await new Promise((r) => setImmediate(r));
  };
  return { runner, groups, release };
}

describe('GroupRunner', () => {
  it('runs an item alone at once, and the items submitted meanwhile together in the next group', async () => {
    const { runner, groups, release } = recordingRunner(32);
    const first = runner.submit(1);
    expect(groups).toStrictEqual([[1]]); // started synchronously: no added latency on a quiet server
    const later = [runner.submit(2), runner.submit(3), runner.submit(4)];
    expect(groups).toHaveLength(1);
    await release();
    expect(await first).toBe(10);
    expect(groups).toStrictEqual([[1], [2, 3, 4]]);
    await release();
    expect(await Promise.all(later)).toStrictEqual([20, 30, 40]);
  });

  it('never puts more than max items in a group', async () => {
    const { runner, groups, release } = recordingRunner(2);
    const all = [1, 2, 3, 4, 5].map((i) => runner.submit(i));
    for (let i = 0; i < 3; i++) await release();
    expect(await Promise.all(all)).toStrictEqual([10, 20, 30, 40, 50]);
    expect(groups).toStrictEqual([[1], [2, 3], [4, 5]]);
  });

  it('fails only the item whose outcome failed; a run that throws fails its whole group and the runner goes on', async () => {
    const { runner, release } = recordingRunner(32);
    const head = runner.submit(0);
    const [ok, bad] = [runner.submit(5), runner.submit(-1)];
    const refused = expect(bad).rejects.toThrow('bad -1');
    await release();
    await release();
    await head;
    expect(await ok).toBe(50);
    await refused;

    let calls = 0;
    const throwing = new GroupRunner<number, number>(async (items) => {
      calls += 1;
      if (calls === 1) throw new Error('statement failed');
      return items.map((value) => ({ status: 'fulfilled' as const, value }));
    }, 8);
    await expect(throwing.submit(1)).rejects.toThrow('statement failed');
    expect(await throwing.submit(2)).toBe(2);
  });
});
