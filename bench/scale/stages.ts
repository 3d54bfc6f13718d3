import { RUN_STAGES } from '../../server/agent/run/stages';
import { parseSamples } from '../../test/support/prometheus-text';
import type { Cluster } from './cluster';

/**
 * bench:scale's per-stage table (issue #38): what the runs of a backlog spent per stage (server/agent/run/stages.ts),
 * read from the `agentlink_agent_run_stage_seconds` histogram of every process that runs requests, before and after
 * the backlog. The histogram's sum and count give each stage's mean per run (a median would need every sample: the
 * workers are other processes).
 */
export type StageTotals = Map<string, { sum: number; count: number }>;

/** The stage histogram's sums and counts, added up over the processes that run requests. */
export async function stageTotals(c: Cluster): Promise<StageTotals> {
  const out: StageTotals = new Map();
  for (const p of c.workers.length ? c.workers : c.apis) {
    const res = await fetch(`${p.base}/metrics`);
    if (!res.ok) throw new Error(`GET ${p.base}/metrics: HTTP ${res.status}`);
    for (const s of parseSamples(await res.text())) {
      const stage = s.labels.stage;
      if (!stage) continue;
      const t = out.get(stage) ?? { sum: 0, count: 0 };
      if (s.name === 'agentlink_agent_run_stage_seconds_sum') t.sum += s.value;
      else if (s.name === 'agentlink_agent_run_stage_seconds_count') t.count += s.value;
      else continue;
      out.set(stage, t);
    }
  }
  return out;
}

/** Mean milliseconds per run of each stage between two readings. */
export function stageMeans(before: StageTotals, after: StageTotals): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [stage, a] of after) {
    const b = before.get(stage) ?? { sum: 0, count: 0 };
    const n = a.count - b.count;
    if (n > 0) out[stage] = ((a.sum - b.sum) * 1000) / n;
  }
  return out;
}

const fmt = (v: number | undefined) => (v !== undefined && Number.isFinite(v) ? `${v.toFixed(v < 10 ? 1 : 0)} ms` : '—');

/** A markdown table: each stage's mean per run in each deployment, and the second's over the first's. */
export function stageRows(cols: { label: string; means: Record<string, number> }[]): string[] {
  const [a, b] = cols;
  const head = `| stage (mean per run) | ${cols.map((c) => c.label).join(' | ')} | ${b ? 'difference' : ''} |`;
  const rows = RUN_STAGES.map((stage) => {
    const x = a?.means[stage];
    const y = b?.means[stage];
    const diff = x !== undefined && y !== undefined ? `${y - x >= 0 ? '+' : ''}${fmt(y - x)}` : '';
    return `| ${stage} | ${cols.map((c) => fmt(c.means[stage])).join(' | ')} | ${diff} |`;
  });
  return [head, `|---|${cols.map(() => '---|').join('')}---|`, ...rows];
}
