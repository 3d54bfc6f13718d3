import { createHash } from 'node:crypto';

import { parameterSlots } from '../../server/agent/planner/placeholders';
import { type Trajectory, TRAJECTORY_VERSION, trajectoryKey, type TrajectoryMode } from '../../server/agent/replay/trajectory';
import { TrajectoryStore } from '../../server/agent/replay/trajectory-store';
import { TrajectoriesPerMode1763720000000 } from '../../server/store/migrations/1763720000000-trajectories-per-mode';
import { CheckedTrajectories1763721100000 } from '../../server/store/migrations/1763721100000-checked-trajectories';
import { describeEachStore } from '../support/app';

/** The replay cache: what makes two requests "the same action", and the stored, versioned entries on both stores. */
const PROVIDER = '5d1f4c5e-8a59-4c1e-9a57-0d8d3f0b6a11';
const key = (
  action: string,
  parameters: Record<string, unknown>,
  startingUrl = 'http://orbit.sandbox.localhost:4000/',
  mode: TrajectoryMode = 'read_write',
) => trajectoryKey({ scope: 'org_test:sandbox', providerId: PROVIDER, mode, action, startingUrl, slots: parameterSlots(parameters) });

describe('trajectory keys', () => {
  it('are equal for the same action template whatever the string parameter values, case and spacing', () => {
    const a = key('Post "Hello there" on my feed', { text: 'Hello there' });
    const b = key('post  "Something else entirely"   on my FEED', { text: 'Something else entirely' });
    expect(a.key).toBe(b.key);
    expect(a.actionTemplate).toBe('post "{{parameters.text}}" on my feed');
  });

  it('differ by provider, mode, template, parameter names, shown values and starting path', () => {
    const base = key('Follow Ada Lovelace', { name: 'Ada Lovelace' }, 'http://orbit.sandbox.localhost:4000/network?page=2');
    expect(base.startPath).toBe('/network?page=2');
    const variants = [
      trajectoryKey({
        scope: 'org_test:sandbox',
        providerId: 'other',
        mode: 'read_write',
        action: 'Follow Ada Lovelace',
        startingUrl: 'http://orbit.sandbox.localhost:4000/network?page=2',
        slots: parameterSlots({ name: 'Ada Lovelace' }),
      }),
      key('Follow Ada Lovelace', { name: 'Ada Lovelace' }, 'http://orbit.sandbox.localhost:4000/network?page=2', 'read'),
      key('Unfollow Ada Lovelace', { name: 'Ada Lovelace' }, 'http://orbit.sandbox.localhost:4000/network?page=2'),
      key('Follow Ada Lovelace', { person: 'Ada Lovelace' }, 'http://orbit.sandbox.localhost:4000/network?page=2'),
      key('Follow Ada Lovelace', { name: 'Ada Lovelace', count: 2 }, 'http://orbit.sandbox.localhost:4000/network?page=2'),
      key('Follow Ada Lovelace', { name: 'Ada Lovelace' }, 'http://orbit.sandbox.localhost:4000/network?page=3'),
    ];
    for (const v of variants) expect(v.key).not.toBe(base.key);
    // Numbers are shown to the model, so a different count is a different run.
    expect(key('Like the first 3 posts', { count: 3 }).key).not.toBe(key('Like the first 5 posts', { count: 5 }).key);
    // The same host on another port (another deployment) is the same path.
    expect(key('Open it', {}, 'http://orbit.sandbox.localhost:5000/in/ada/').key).toBe(
      key('Open it', {}, 'http://orbit.sandbox.localhost:4000/in/ada').key,
    );
  });

  it('put string parameters of the starting path as placeholders', () => {
    expect(key('Open the profile', { username: 'ada-l' }, 'http://orbit.sandbox.localhost:4000/in/ada-l').startPath).toBe(
      '/in/{{parameters.username}}',
    );
  });
});

const trajectory = (steps: Trajectory['steps'], mode: TrajectoryMode = 'read_write'): Trajectory => ({
  version: TRAJECTORY_VERSION,
  mode,
  startPath: '/',
  parameterNames: ['text'],
  steps,
  result: { kind: 'object', properties: { posted: { kind: 'const', value: true } } },
});

describeEachStore('trajectory store', (t) => {
  it('stores, finds, replaces and counts replays; another schema or version is a miss', async () => {
    const store = new TrajectoryStore(t.store, t.clock);
    const k = key('Post "x"', { text: 'x' });
    expect(await store.find(k.key, 'schema-a', 'read_write')).toEqual({
      hit: false,
      reason: 'no trajectory was recorded for this action in this mode yet',
    });

    const first = trajectory([
      { tool: 'click', target: { role: 'button', name: 'Start a post', scope: null, tag: 'button', nth: 0, count: 1 }, args: {} },
    ]);
    await store.save({ key: k.key, providerId: PROVIDER, actionTemplate: k.actionTemplate, schemaHash: 'schema-a', trajectory: first });
    expect(await store.find(k.key, 'schema-a', 'read_write')).toEqual({ hit: true, trajectory: first });
    expect(await store.find(k.key, 'schema-b', 'read_write')).toEqual({
      hit: false,
      reason: 'the recorded trajectory was learned for another responseFormat',
    });

    await store.markReplayed(k.key);
    await store.markReplayed(k.key);
    expect(await t.store.repos.agentTrajectories.findById(k.key)).toMatchObject({ replayCount: 2, lastReplayedAt: expect.any(Date) });

    const second = trajectory([{ tool: 'navigate', args: { url: '/new' } }]);
    await store.save({ key: k.key, providerId: PROVIDER, actionTemplate: k.actionTemplate, schemaHash: 'schema-b', trajectory: second });
    expect(await store.find(k.key, 'schema-b', 'read_write')).toEqual({ hit: true, trajectory: second });
    expect(await t.store.repos.agentTrajectories.findById(k.key)).toMatchObject({
      replayCount: 0,
      lastReplayedAt: null,
      actionTemplate: 'post "{{parameters.text}}"',
    });

    await t.store.dataSource
      .createQueryBuilder()
      .update('agent_trajectories')
      .set({ version: TRAJECTORY_VERSION + 1 })
      .where('id = :id', { id: k.key })
      .execute();
    expect(await store.find(k.key, 'schema-b', 'read_write')).toMatchObject({ hit: false, reason: expect.stringContaining('version') });
  });
});

describeEachStore('trajectory store, per mode', (t) => {
  const click = (name: string): Trajectory['steps'] => [
    { tool: 'click', target: { role: 'button', name, scope: null, tag: 'button', nth: 0, count: 1 }, args: {} },
  ];

  it('finds a trajectory only for requests of the mode it was recorded in, each way', async () => {
    const store = new TrajectoryStore(t.store, t.clock);
    const action = 'Refresh my notifications';
    const read = key(action, {}, undefined, 'read');
    const readWrite = key(action, {}, undefined, 'read_write');
    expect(read.actionTemplate).toBe(readWrite.actionTemplate);
    expect(read.startPath).toBe(readWrite.startPath);

    const learnedReading = trajectory(click('Refresh'), 'read');
    await store.save({
      key: read.key,
      providerId: PROVIDER,
      actionTemplate: read.actionTemplate,
      schemaHash: 's',
      trajectory: learnedReading,
    });
    expect(await store.find(read.key, 's', 'read')).toEqual({ hit: true, trajectory: learnedReading });
    expect(await store.find(readWrite.key, 's', 'read_write')).toEqual({
      hit: false,
      reason: 'no trajectory was recorded for this action in this mode yet',
    });

    const learnedWriting = trajectory(click('Mark all read'), 'read_write');
    await store.save({
      key: readWrite.key,
      providerId: PROVIDER,
      actionTemplate: readWrite.actionTemplate,
      schemaHash: 's',
      trajectory: learnedWriting,
    });
    // Two rows now: each mode finds its own, never the other's.
    expect(await store.find(readWrite.key, 's', 'read_write')).toEqual({ hit: true, trajectory: learnedWriting });
    expect(await store.find(read.key, 's', 'read')).toEqual({ hit: true, trajectory: learnedReading });
  });

  it("checks the body's mode too: a row under the other mode's key is a miss", async () => {
    const store = new TrajectoryStore(t.store, t.clock);
    const readWrite = key('Archive the old notes', {}, undefined, 'read_write');
    await store.save({
      key: readWrite.key,
      providerId: PROVIDER,
      actionTemplate: readWrite.actionTemplate,
      schemaHash: 's',
      trajectory: trajectory(click('Archive'), 'read'),
    });
    expect(await store.find(readWrite.key, 's', 'read_write')).toEqual({
      hit: false,
      reason: 'the recorded trajectory was learned in read mode, not read_write',
    });
  });

  it('never finds a version 1 entry (recorded before the mode was kept) for either mode', async () => {
    const store = new TrajectoryStore(t.store, t.clock);
    const k = key('Read my saved drafts', {});
    // Version 1 hashed the same inputs without the mode: no mode is stored to sort the old rows by.
    const v1 = createHash('sha256')
      .update(JSON.stringify([1, 'org_test:sandbox', PROVIDER, k.actionTemplate, k.startPath, []]))
      .digest('hex');
    const old = { ...trajectory(click('Drafts')), version: 1 } as Partial<Trajectory>;
    delete old.mode;
    await store.save({ key: v1, providerId: PROVIDER, actionTemplate: k.actionTemplate, schemaHash: 's', trajectory: old as Trajectory });
    for (const mode of ['read', 'read_write'] as const) {
      const now = key('Read my saved drafts', {}, undefined, mode);
      expect(now.key).not.toBe(v1);
      expect(await store.find(now.key, 's', mode)).toMatchObject({ hit: false });
    }
  });

  it('the migration deletes the version 1 entries (unreachable) and keeps the current ones', async () => {
    const store = new TrajectoryStore(t.store, t.clock);
    const kept = key('Read my pinned notes', {}, undefined, 'read');
    await store.save({
      key: kept.key,
      providerId: PROVIDER,
      actionTemplate: kept.actionTemplate,
      schemaHash: 's',
      trajectory: trajectory(click('Pinned'), 'read'),
    });
    const old = key('Read my old notes', {});
    await store.save({
      key: old.key,
      providerId: PROVIDER,
      actionTemplate: old.actionTemplate,
      schemaHash: 's',
      trajectory: trajectory([]),
    });
    await t.store.dataSource
      .createQueryBuilder()
      .update('agent_trajectories')
      .set({ version: 1 })
      .where('id = :id', { id: old.key })
      .execute();

    const runner = t.store.dataSource.createQueryRunner();
    try {
      await new TrajectoriesPerMode1763720000000().up(runner);
    } finally {
      await runner.release();
    }
    expect(await t.store.repos.agentTrajectories.findById(old.key)).toBeNull();
    expect(await t.store.repos.agentTrajectories.findById(kept.key)).toMatchObject({ version: TRAJECTORY_VERSION });
  });

  it('a trajectory whose replay did not match the page is stale: a miss that says so, until a new recording replaces it', async () => {
    const store = new TrajectoryStore(t.store, t.clock);
    const k = key('List my flows', {}, undefined, 'read');
    const first = trajectory(click('Flows'), 'read');
    await store.save({ key: k.key, providerId: PROVIDER, actionTemplate: k.actionTemplate, schemaHash: 's', trajectory: first });
    await store.markStale(k.key, 'the list under "Flows" is not on the page');
    expect(await store.find(k.key, 's', 'read')).toEqual({
      hit: false,
      stale: true,
      reason: 'the recorded trajectory is stale (the list under "Flows" is not on the page)',
    });
    expect(await t.store.repos.agentTrajectories.findById(k.key)).toMatchObject({ staleAt: expect.any(Date) });
    await store.save({ key: k.key, providerId: PROVIDER, actionTemplate: k.actionTemplate, schemaHash: 's', trajectory: first });
    expect(await store.find(k.key, 's', 'read')).toEqual({ hit: true, trajectory: first });
    expect(await t.store.repos.agentTrajectories.findById(k.key)).toMatchObject({ staleAt: null, staleReason: null });
  });

  it('the migration deletes the version 2 entries (their lists have nothing a replay could check)', async () => {
    const store = new TrajectoryStore(t.store, t.clock);
    const kept = key('Read my pinned flows', {}, undefined, 'read');
    const old = key('Read my old flows', {}, undefined, 'read');
    for (const k of [kept, old])
      await store.save({
        key: k.key,
        providerId: PROVIDER,
        actionTemplate: k.actionTemplate,
        schemaHash: 's',
        trajectory: trajectory([], 'read'),
      });
    await t.store.dataSource
      .createQueryBuilder()
      .update('agent_trajectories')
      .set({ version: 2 })
      .where('id = :id', { id: old.key })
      .execute();
    const runner = t.store.dataSource.createQueryRunner();
    try {
      await new CheckedTrajectories1763721100000().up(runner);
    } finally {
      await runner.release();
    }
    expect(await t.store.repos.agentTrajectories.findById(old.key)).toBeNull();
    expect(await t.store.repos.agentTrajectories.findById(kept.key)).toMatchObject({ version: TRAJECTORY_VERSION });
  });
});
