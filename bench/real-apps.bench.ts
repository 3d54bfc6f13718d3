/**
 * Real-app corpus bench: how the agent fares on open-source web apps nobody here wrote.
 *
 *   npm run bench:real-apps                 # installs the apps (once), then one pass over the corpus
 *   npm run bench:real-apps -- --runs 3     # three passes: model calls as medians, shares over all runs
 *
 * The same harness as the test (test/real-apps/real-app-harness.ts): each app is declared as an organization's private
 * provider, the person signs in through the live view's canvas, and each read is asked twice through the API, run by
 * the embedded worker with the label-picking model (it picks only from what the observation says, waits while the
 * page says it is loading). Per app and read it prints:
 *   - ready: share of first observations that showed the read's content (the page had drawn it);
 *   - calls: model calls of the first read (median over runs), and the fewest the read needs;
 *   - recorded: share of first reads recorded for replay, with the reason of the last refusal;
 *   - 2nd read: how the second read ran (REPLAY or PLANNER again) and its model calls (median);
 *   - per app: the time from the person's last key to the widget's "Connected!" (median), the size of the first
 *     observation, and the outcome of a session check (POST /api/connections/{id}/check) after the reads.
 */
import { parseArgs } from 'node:util';

import { FEWEST_CALLS, REAL_APPS } from '../test/real-apps/real-app-corpus';
import { type AppReport, measureApp, startRealAppServers } from '../test/real-apps/real-app-harness';

const { values } = parseArgs({ args: process.argv.slice(2), options: { runs: { type: 'string', default: '1' } } });
const runs = Math.max(1, Number(values.runs));

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : NaN;
};
const share = (xs: boolean[]) => `${xs.filter(Boolean).length}/${xs.length}`;

async function main(): Promise<void> {
  const servers = await startRealAppServers();
  const reports: AppReport[] = [];
  try {
    for (let run = 0; run < runs; run++) {
      for (const app of REAL_APPS) {
        const report = await measureApp(servers, app);
        reports.push(report);
        console.error(`run ${run + 1}/${runs} ${app.id}: ${report.connected ? 'connected' : `not connected (${report.signInError})`}`);
      }
    }
  } finally {
    await servers.close();
  }

  const rows: string[][] = [['app', 'read', 'ready', 'calls (fewest)', 'recorded', '2nd read', '2nd calls']];
  const whyNot: string[] = [];
  for (const app of REAL_APPS) {
    const mine = reports.filter((r) => r.app === app.id);
    for (const read of app.reads) {
      const rs = mine.flatMap((r) => r.reads.filter((x) => x.read.id === read.id));
      // Each distinct reason a first read failed or was not recorded (cache-busting query strings and ports aside).
      const reasons = rs.filter((r) => !r.first.recorded.ok).map((r) => r.first.error?.message ?? r.first.recorded.reason ?? '');
      for (const reason of new Set(reasons.map((x) => x.replace(/\?_=\d+/g, '').replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>'))))
        whyNot.push(`${app.id} ${read.id}: ${reason}`);
      rows.push([
        `${app.id} ${mine[0]?.version ?? ''}`,
        read.id,
        share(rs.map((r) => r.first.firstObservation?.ready === true)),
        `${median(rs.map((r) => r.first.modelCalls))} (${FEWEST_CALLS[`${app.id}/${read.id}`]})`,
        share(rs.map((r) => r.first.recorded.ok)),
        [...new Set(rs.map((r) => `${r.second.method ?? r.second.status}`))].join('/'),
        String(median(rs.map((r) => r.second.modelCalls))),
      ]);
    }
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  console.log(`\nReal-app corpus, ${runs} run(s) per app (first read: planner; second read: the same action again)\n`);
  for (const [n, row] of rows.entries()) {
    console.log(
      row
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    );
    if (n === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
  console.log('\nWhy first reads failed or were not recorded for replay:');
  for (const line of whyNot.length ? whyNot : ['(every first read was recorded)']) console.log(`  ${line}`);
  console.log('\nSign-in through the live view (last key → "Connected!"), median:');
  for (const app of REAL_APPS) {
    const ms = reports.filter((r) => r.app === app.id && r.msToConnected !== null).map((r) => r.msToConnected!);
    const first = reports.find((r) => r.app === app.id && r.reads[0]?.first.firstObservation);
    const obs = first?.reads[0]?.first.firstObservation;
    const checks = reports.filter((r) => r.app === app.id).map((r) => r.sessionCheck ?? 'not run');
    console.log(
      `  ${app.id}: ${ms.length ? `${median(ms)} ms` : 'not connected'}; first observation of its first read: ${obs ? `${obs.chars} chars, ${obs.elements} elements` : 'none'}; session check after the reads: ${checks.join(', ')}`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
