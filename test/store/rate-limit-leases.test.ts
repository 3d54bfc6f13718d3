import { ManualClock } from '../../server/domain/clock';
import { RateLimitService, type RateLimitSettings } from '../../server/domain/rate-limits.service';
import { describeEachStore } from '../support/app';

/**
 * RateLimitService takes tokens from the shared database bucket in leases (one UPDATE per up to 10
 * requests) and spends them in the process. What must hold, on both engines: the headers count every
 * request, all processes together never admit more than the bucket gives, the last tokens go one by one,
 * and unspent leases do not outlive a second.
 */
describeEachStore('rate limit leases', (t) => {
  let n = 0;
  const caller = () => ({ organizationId: `org_lease_${++n}`, environment: 'sandbox' as const });
  // Practically no refill during a test: the counts are exact.
  const settings = (burst: number): RateLimitSettings => ({ perSecond: 0.001, burst });
  const countingBuckets = () => {
    const buckets = t.store.repos.rateLimitBuckets;
    const calls: number[] = [];
    const take: typeof buckets.take = (key, opts) => {
      calls.push(opts.count ?? 1);
      return buckets.take(key, opts);
    };
    return { repo: Object.assign(Object.create(buckets), { take }) as typeof buckets, calls };
  };

  it('takes ten tokens per database write and still reports every request in RateLimit-Remaining', async () => {
    const { repo, calls } = countingBuckets();
    const limits = new RateLimitService(repo, new ManualClock(Date.now()), settings(200));
    const who = caller();
    const remaining: number[] = [];
    for (let i = 0; i < 100; i++) {
      const d = await limits.take(who);
      expect(d?.allowed).toBe(true);
      remaining.push(d!.remaining);
    }
    expect(remaining).toStrictEqual(Array.from({ length: 100 }, (_, i) => 199 - i));
    expect(calls).toStrictEqual(Array(10).fill(10));
  });

  it('lets concurrent requests of one process wait for one lease instead of each writing', async () => {
    const { repo, calls } = countingBuckets();
    const limits = new RateLimitService(repo, new ManualClock(Date.now()), settings(200));
    const who = caller();
    const decisions = await Promise.all(Array.from({ length: 40 }, () => limits.take(who)));
    expect(decisions.every((d) => d?.allowed)).toBe(true);
    expect(calls).toStrictEqual([10, 10, 10, 10]);
  });

  it('never admits more than the burst across processes, and gives the last tokens one at a time', async () => {
    const who = caller();
    const clock = new ManualClock(Date.now());
    // Three "processes": separate services (separate leases) on the one bucket.
    const processes = [0, 1, 2]
      .map(() => countingBuckets())
      .map((b) => ({ ...b, limits: new RateLimitService(b.repo, clock, settings(35)) }));
    const decisions = (await Promise.all(processes.map((p) => Promise.all(Array.from({ length: 30 }, () => p.limits.take(who)))))).flat();
    expect(decisions.filter((d) => d?.allowed)).toHaveLength(35);
    for (const d of decisions.filter((x) => !x?.allowed)) {
      expect(d).toMatchObject({ remaining: 0, limit: 35 });
      expect(d!.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    }
    // Leases of 3 (a tenth of the burst) while the bucket held that many, then single tokens.
    const sizes = processes.flatMap((p) => p.calls);
    expect(new Set(sizes)).toStrictEqual(new Set([3, 1]));
  });

  it('drops unspent leased tokens after a second, so an idle process does not sit on them', async () => {
    const { repo, calls } = countingBuckets();
    const clock = new ManualClock(Date.now());
    const limits = new RateLimitService(repo, clock, settings(200));
    const who = caller();
    expect((await limits.take(who))?.remaining).toBe(199);
    expect(calls).toHaveLength(1);
    clock.advance(1001);
    // The 9 tokens left of the first lease are gone: the bucket gave 20, one request was served per lease.
    expect((await limits.take(who))?.remaining).toBe(189);
    expect(calls).toHaveLength(2);
  });

  it('starts a full bucket for a new key even when several processes ask at once', async () => {
    const who = caller();
    const clock = new ManualClock(Date.now());
    const a = new RateLimitService(t.store.repos.rateLimitBuckets, clock, settings(50));
    const b = new RateLimitService(t.store.repos.rateLimitBuckets, clock, settings(50));
    const decisions = await Promise.all([a.take(who), b.take(who), a.take(who), b.take(who)]);
    expect(decisions.every((d) => d?.allowed)).toBe(true);
    expect(Math.max(...decisions.map((d) => d!.remaining))).toBe(49);
  });
});
