/**
 * SQLite transactions beside the serving connection: what do they cost the writes of everyone else?
 *
 *   npx tsx bench/sqlite-transactions.bench.ts             # 4 s per phase
 *   npx tsx bench/sqlite-transactions.bench.ts --quick     # 2 s per phase
 *
 * store.transaction() on SQLite holds the one shared connection (server/store/sqlite-gate.ts): other statements wait
 * in JavaScript until it commits. The design it replaced ran transactions on a second connection: a serving-connection
 * write that met the transaction's write lock waited in SQLite's busy handler holding its connection's mutex and a
 * libuv worker thread, the statements queued behind it took the other threads, and the transaction's next statement
 * found none until the busy timeout (5 s) failed the write with SQLITE_BUSY. Measured here, in one process on a temp
 * file: 24 loops of writes and reads on the serving connection, first alone, then while one loop removes members back
 * to back (each removal a transaction: owners read, membership read, DELETE). Printed: the serving loops' p50/p99/max
 * latency and errors in both phases, and the transactions' count and p50. A starved transaction shows as a max of
 * seconds and errors (the second-connection design: 1 transaction in 2 s, an 11.4 s stall, 2 SQLITE_BUSY errors).
 * Last, the CPU the gate adds to every statement when no transaction holds the connection (the request hot path).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { OrganizationMembersService } from '../server/dashboard/members.service';
import { Store } from '../server/store';
import { SqliteGate } from '../server/store/sqlite-gate';

const SERVING_LOOPS = 24;

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const ms = (n: number) => `${n.toFixed(2)} ms`;

async function servingLoops(store: Store, until: number) {
  const latencies: number[] = [];
  let errors = 0;
  await Promise.all(
    Array.from({ length: SERVING_LOOPS }, async (_, i) => {
      for (let n = 0; Date.now() < until; n++) {
        const start = performance.now();
        try {
          if (n % 2 === 0) await store.repos.dashboardLoginThrottle.recordFailure(`loop${i}@example.com`, new Date());
          else await store.repos.dashboardUsers.findByEmail(`loop${i}@example.com`);
        } catch {
          errors++;
        }
        latencies.push(performance.now() - start);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { ops: latencies.length, p50: pct(latencies, 50), p99: pct(latencies, 99), max: latencies[latencies.length - 1] ?? NaN, errors };
}

async function removalLoop(store: Store, until: number) {
  const members = new OrganizationMembersService(store);
  const times: number[] = [];
  let errors = 0;
  for (let n = 0; Date.now() < until; n++) {
    const organizationId = `org_bench${n}`;
    const now = new Date();
    await store.repos.orgMemberships.insert({ userId: `usr_owner${n}`, organizationId, role: 'owner', createdAt: now });
    await store.repos.dashboardUsers.insert({ id: `usr_m${n}`, email: `m${n}@example.com`, passwordHash: 'x', createdAt: now });
    await store.repos.orgMemberships.insert({ userId: `usr_m${n}`, organizationId, role: 'member', createdAt: now });
    const start = performance.now();
    const removed = await members.remove(organizationId, { userId: `usr_m${n}` }).catch(() => null);
    times.push(performance.now() - start);
    if (!removed?.ok) errors++;
  }
  times.sort((a, b) => a - b);
  return { count: times.length, p50: pct(times, 50), max: times[times.length - 1] ?? NaN, errors };
}

/** CPU time the gate adds to each statement when no transaction holds the connection (the hot path): ns per send. */
function gateCostNs(): number {
  const gate = new SqliteGate();
  const n = 2_000_000;
  const noop = (done: () => void) => done();
  for (let i = 0; i < 100_000; i++) gate.send(noop);
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) gate.send(noop);
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / n;
}

async function main() {
  const { values } = parseArgs({ options: { quick: { type: 'boolean' } } });
  const phaseMs = values.quick ? 2000 : 4000;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-bench-tx-'));
  const store = await Store.open({ type: 'sqlite', file: path.join(dir, 'agentlink.sqlite') });
  try {
    const alone = await servingLoops(store, Date.now() + phaseMs);
    const until = Date.now() + phaseMs;
    const [beside, tx] = await Promise.all([servingLoops(store, until), removalLoop(store, until)]);
    const line = (name: string, r: typeof alone) =>
      `${name.padEnd(26)} ops ${String(r.ops).padStart(6)}  p50 ${ms(r.p50)}  p99 ${ms(r.p99)}  max ${ms(r.max)}  errors ${r.errors}`;
    console.log(`SQLite, ${SERVING_LOOPS} serving loops (write/read alternating), ${phaseMs} ms per phase`);
    console.log(line('serving alone', alone));
    console.log(line('serving beside removals', beside));
    console.log(`transactions (member removals): ${tx.count}, p50 ${ms(tx.p50)}, max ${ms(tx.max)}, errors ${tx.errors}`);
    console.log(`serving p50 ratio (beside / alone): ${(beside.p50 / alone.p50).toFixed(2)}x`);
    console.log(`gate cost per statement, no transaction: ${gateCostNs().toFixed(0)} ns of CPU`);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
