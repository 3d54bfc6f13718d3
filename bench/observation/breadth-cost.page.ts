import { delegatedTargets } from '../../server/agent/observation/dom/delegation.page';
import { listenerProbe } from '../../server/agent/observation/dom/listeners.page';
import { svgControls } from '../../server/agent/observation/dom/svg.page';

/** The DevTools command-line API, there when evaluated through CDP with includeCommandLineAPI (as the snapshot is). */
declare const getEventListeners: unknown;

/**
 * In the page, for bench/observation-breadth-cost.bench.ts: what the parts issue 34 added to the snapshot cost on
 * this document, each run from scratch: reading jQuery's registry of delegated selectors, and looking for SVG shapes
 * with listeners in every <svg> (each with a fresh listener probe, so nothing is cached between runs). Milliseconds
 * per run, the mean of `runs`.
 */
export default function breadthCost(a: { runs: number }): { registryMs: number; svgMs: number; targets: number; shapes: number } {
  const cli = typeof getEventListeners === 'function';
  let shapes = 0;
  // timed over all runs together: a page's clock is coarse (0.1 ms), one run of each is often below it
  let t0 = performance.now();
  let set = new Set<Element>();
  for (let i = 0; i < a.runs; i++) set = delegatedTargets(document);
  const registryMs = (performance.now() - t0) / a.runs;
  const targets = set.size;
  t0 = performance.now();
  for (let i = 0; i < a.runs; i++) {
    const probe = listenerProbe(cli, set);
    shapes = 0;
    const roots = document.querySelectorAll('svg');
    for (let k = 0; k < roots.length; k++) if (!probe.own(roots[k]!)) shapes += svgControls(roots[k]!, probe).length;
  }
  const svgMs = (performance.now() - t0) / a.runs;
  return { registryMs, svgMs, targets, shapes };
}
