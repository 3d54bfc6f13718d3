import { parseLeaf } from '../../../contract/response-format';
import type { Playbook, PlaybookRegistry } from '../../../server/agent/playbooks/registry';
import { type ShapeOptions, shapeToFormat } from '../../../server/agent/playbooks/shape';
import { shapeListToFormat } from '../../../server/agent/playbooks/shape-list';
import type { ProviderCatalogue } from '../../../server/providers/catalogue';
import type { RoutingCase, RoutingCategory } from './types';

/**
 * Runs routing without a model on a set of cases (no browser): the route must pick the expected playbook (or
 * nothing), fill the expected parameters from the action, and, with a responseFormat, fit the format from the
 * playbook's declared result fields (resultFields, each given a distinct sample value) so that each key the case
 * names gets the field it names. What the playbook reads at run time has those fields under those names.
 */
export interface CaseOutcome {
  case: RoutingCase;
  ok: boolean;
  /** What happened instead, when not ok. */
  why?: string;
}

export const CATEGORIES: readonly RoutingCategory[] = [
  'paraphrase',
  'opposite',
  'close-actions',
  'verb-frame',
  'quantity',
  'result-field',
  'must-not-run',
];

export async function evaluate(
  cases: readonly RoutingCase[],
  registry: PlaybookRegistry,
  catalogue: ProviderCatalogue,
): Promise<CaseOutcome[]> {
  const out: CaseOutcome[] = [];
  for (const c of cases) out.push(await evaluateOne(c, registry, catalogue));
  return out;
}

async function evaluateOne(c: RoutingCase, registry: PlaybookRegistry, catalogue: ProviderCatalogue): Promise<CaseOutcome> {
  const provider = catalogue.bySlug(c.provider, 'sandbox');
  if (!provider) return { case: c, ok: false, why: `no sandbox provider ${c.provider}` };
  const route = await registry.route({
    action: c.action,
    provider,
    parameters: {},
    signal: new AbortController().signal,
    by: 'text',
    mode: c.mode ?? 'read_write',
  });
  const ran = route.playbook?.name ?? null;
  if (c.expect === null) return ran ? { case: c, ok: false, why: `ran ${ran}` } : { case: c, ok: true };
  if (!route.playbook) {
    const closest = 'closest' in route.problem ? route.problem.closest.map((s) => `${s.name} ${s.score}`).join(', ') : '';
    return { case: c, ok: false, why: `${route.problem.kind}${closest ? ` (${closest})` : ''}: ${route.reason}` };
  }
  if (ran !== c.expect) return { case: c, ok: false, why: `ran ${ran} (score ${route.score})` };
  const params = route.params as Record<string, unknown>;
  for (const [name, value] of Object.entries(c.params ?? {})) {
    if (params[name] !== value)
      return { case: c, ok: false, why: `parameter ${name} = ${JSON.stringify(params[name])}, not ${JSON.stringify(value)}` };
  }
  if (c.responseFormat) {
    const why = checkFields(route.playbook, c.responseFormat, c.fields ?? {});
    if (why) return { case: c, ok: false, why };
  }
  return { case: c, ok: true };
}

/** A distinct sample value for each declared result field, of its declared type. */
function samples(spec: Record<string, unknown>, seed: { n: number }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, node] of Object.entries(spec)) {
    seed.n += 1;
    if (Array.isArray(node)) {
      out[name] = typeof node[0] === 'string' ? [`${name}-a`, `${name}-b`] : [samples(node[0] as Record<string, unknown>, seed)];
      continue;
    }
    if (typeof node !== 'string') continue;
    const leaf = parseLeaf(node);
    const type = 'error' in leaf ? 'string' : leaf.type;
    out[name] =
      type === 'integer' || type === 'number'
        ? 1000 + seed.n
        : type === 'boolean'
          ? true
          : type === 'datetime' || type === 'date'
            ? new Date(Date.UTC(2026, 0, 1, 0, seed.n)).toISOString()
            : type === 'url'
              ? `https://example.test/${name}`
              : `${name}-value`;
  }
  return out;
}

function checkFields(playbook: Playbook<unknown>, format: Record<string, unknown>, expected: Record<string, string>): string | null {
  const spec = playbook.resultFields as Record<string, unknown>;
  const values = samples(spec, { n: 0 });
  const listKey = Object.keys(spec).find((k) => Array.isArray(spec[k]));
  const opts: ShapeOptions = { fieldMeanings: spec };
  let shaped: Record<string, unknown>;
  let item: Record<string, unknown> = {};
  try {
    if (listKey) {
      item = (values[listKey] as Record<string, unknown>[])[0]!;
      const extras = Object.fromEntries(Object.entries(values).filter(([k]) => k !== listKey));
      shaped = shapeListToFormat({ items: [item], extras }, format, '', opts);
    } else {
      shaped = shapeToFormat(values, format, {}, '', opts);
    }
  } catch (err) {
    return `responseFormat refused: ${(err as Error).message}`;
  }
  for (const [path, field] of Object.entries(expected)) {
    const m = /^(\w+)\[\]\.(\w+)$/.exec(path);
    const got = m ? ((shaped[m[1]!] as Record<string, unknown>[] | undefined)?.[0]?.[m[2]!] ?? undefined) : shaped[path];
    const want = m ? item[field] : values[field];
    if (got !== want) return `responseFormat.${path} = ${JSON.stringify(got)}, not ${field} (${JSON.stringify(want)})`;
  }
  return null;
}

/** Share of cases that came out right, per category and overall. */
export function accuracy(outcomes: readonly CaseOutcome[]): { overall: Tally; byCategory: Record<RoutingCategory, Tally> } {
  const tally = (list: readonly CaseOutcome[]): Tally => ({ ok: list.filter((o) => o.ok).length, total: list.length });
  const byCategory = Object.fromEntries(CATEGORIES.map((cat) => [cat, tally(outcomes.filter((o) => o.case.category === cat))])) as Record<
    RoutingCategory,
    Tally
  >;
  return { overall: tally(outcomes), byCategory };
}

export interface Tally {
  ok: number;
  total: number;
}

export const percent = (t: Tally) => (t.total ? (100 * t.ok) / t.total : 0);
