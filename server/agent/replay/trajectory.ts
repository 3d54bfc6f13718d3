import { createHash } from 'node:crypto';

import { describeElement, type ObservedElement, type PageSnapshot, quote } from '../observation';
import { normalizedActionTemplate, type ParameterSlot, templateOf } from '../planner/placeholders';
import type { PageToolName } from '../tools';

/**
 * A trajectory: what a successful planner run did, stored so the same action can be repeated without the
 * model. Steps name their element by role, accessible name and the labelled region around it (never by the
 * observation's index); typed text is kept as its template ("{{parameters.text}}"), never the value; the
 * result is kept as a plan for reading it from the live page again. Entries are versioned and keyed by
 * hash(version, provider, action template, starting path, parameter names): any mismatch is a miss.
 */
export const TRAJECTORY_VERSION = 1;

export interface ElementDescriptor {
  role: string;
  /** Accessible name as observed (string parameter values appear as their placeholders). */
  name: string;
  scope: string | null;
  tag: string;
  /** Position among the elements with the same role, name and scope, and how many there were. */
  nth: number;
  count: number;
}

export interface TrajectoryStep {
  tool: Exclude<PageToolName, 'extract'>;
  target?: ElementDescriptor;
  /**
   * Tool arguments without the index: templates (text, option, url), key, direction, seconds, submit. A tab step
   * (switch_tab, close_tab) holds the tab's URL and title instead of its number, which differs between runs.
   */
  args: Record<string, unknown>;
}

/** Where the value of one leaf of a result stands on a page (built and read by DOM_SCRIPT). */
export interface LeafBinding {
  anchor: { tag: string; scope: string | null; nth: number };
  prefix: string;
  suffix: string;
  kind: 'string' | 'number';
}

export interface ListBinding {
  container: { tag: string; scope: string | null; nth: number };
  /** Tag names from the container down to an item. */
  signature: string[];
  /** The first N items (null = all of them). */
  limit: number | null;
  fields: ({ path: [string, number][]; prefix: string; suffix: string; kind: 'string' | 'number' } | null)[];
}

export type ValueKind = 'string' | 'number' | 'boolean';

export type ResultPlan =
  | { kind: 'object'; properties: Record<string, ResultPlan> }
  /** A yes/no (or null) the planner concluded after acting; only kept for trajectories that change something. */
  | { kind: 'const'; value: boolean | null | string }
  /** A string built from parameters ("{{parameters.text}}"). */
  | { kind: 'template'; template: string }
  | { kind: 'page'; binding: LeafBinding }
  | { kind: 'list'; list: ListBinding; item: ResultPlan }
  /** Inside a list item: the n-th field read from the item. */
  | { kind: 'field'; field: number; as: 'string' | 'number' };

export interface Trajectory {
  version: number;
  startPath: string;
  parameterNames: string[];
  steps: TrajectoryStep[];
  result: ResultPlan;
}

function sameElement(a: Pick<ObservedElement, 'role' | 'name' | 'scope'>, b: Pick<ElementDescriptor, 'role' | 'name' | 'scope'>) {
  return a.role === b.role && a.name === b.name && (a.scope ?? null) === (b.scope ?? null);
}

/** The robust description of an observed element. */
export function descriptorOf(el: ObservedElement, snapshot: PageSnapshot): ElementDescriptor {
  const same = snapshot.elements.filter((e) => sameElement(e, el));
  return {
    role: el.role,
    name: el.name,
    scope: el.scope,
    tag: el.tag,
    nth: Math.max(
      0,
      same.findIndex((e) => e.index === el.index),
    ),
    count: same.length,
  };
}

export function describeDescriptor(d: ElementDescriptor): string {
  return `${describeElement(d)}${d.scope ? ` in ${d.scope}` : ''}${d.count > 1 ? ` (#${d.nth + 1} of ${d.count})` : ''}`;
}

/**
 * Finds a described element in a live snapshot: exactly one element with that role, name and scope, or, when
 * the recording saw several, the same number of them and the same position.
 */
export function resolveDescriptor(
  d: ElementDescriptor,
  snapshot: PageSnapshot,
): { ok: true; el: ObservedElement } | { ok: false; reason: string } {
  const same = snapshot.elements.filter((e) => sameElement(e, d));
  if (same.length === 0) return { ok: false, reason: `${describeDescriptor(d)} is not on the page` };
  if (d.count <= 1) {
    if (same.length > 1) return { ok: false, reason: `${describeDescriptor(d)} is no longer unique (${same.length} match)` };
    return { ok: true, el: same[0]! };
  }
  if (same.length !== d.count)
    return { ok: false, reason: `${describeDescriptor(d)}: ${same.length} elements match instead of ${d.count}` };
  return { ok: true, el: same[d.nth]! };
}

export function describeStep(s: TrajectoryStep): string {
  const on = s.target ? ` ${describeDescriptor(s.target)}` : '';
  switch (s.tool) {
    case 'navigate':
      return `navigate to ${String(s.args.url)}`;
    case 'type':
      return `type ${quote(String(s.args.text))} into${on}${s.args.submit ? ' and press Enter' : ''}`;
    case 'select':
      return `choose ${quote(String(s.args.option))} in${on}`;
    case 'press':
      return `press ${String(s.args.key)}${s.target ? ` on${on}` : ''}`;
    case 'scroll':
      return s.target ? `scroll to${on}` : `scroll ${String(s.args.direction ?? 'down')}`;
    case 'wait':
      return `wait ${String(s.args.seconds ?? 1)} s`;
    case 'hover':
      return `hover over${on}`;
    case 'switch_tab':
    case 'close_tab':
      return `${s.tool === 'switch_tab' ? 'switch to' : 'close'} the tab showing ${String(s.args.url)} ${quote(String(s.args.title ?? ''))}`;
    default:
      return `${s.tool}${on}`;
  }
}

/** Path and query of the starting URL, trailing slash dropped, query sorted, string parameter values as placeholders. */
export function normalizeStartPath(startingUrl: string, slots: ParameterSlot[]): string {
  const u = new URL(startingUrl);
  const path = u.pathname.length > 1 ? u.pathname.replace(/\/+$/, '') : u.pathname;
  const params = [...u.searchParams.entries()].sort(([a], [b]) => a.localeCompare(b));
  const query = params.length ? `?${params.map(([k, v]) => `${k}=${v}`).join('&')}` : '';
  return templateOf(decodeURIComponent(path) + query, slots);
}

/** Names of the parameters; numbers and booleans with their value (they are shown to the model, so they shape the run). */
export function parameterKeyParts(slots: ParameterSlot[]): string[] {
  return slots.map((s) => (s.kind === 'string' ? s.name : `${s.name}=${s.value}`)).sort();
}

/** `scope` is the owner (organization:environment): one organization's learned steps never replay for another. */
export function trajectoryKey(i: { scope: string; providerId: string; action: string; startingUrl: string; slots: ParameterSlot[] }): {
  key: string;
  actionTemplate: string;
  startPath: string;
} {
  const actionTemplate = normalizedActionTemplate(i.action, i.slots);
  const startPath = normalizeStartPath(i.startingUrl, i.slots);
  const key = createHash('sha256')
    .update(JSON.stringify([TRAJECTORY_VERSION, i.scope, i.providerId, actionTemplate, startPath, parameterKeyParts(i.slots)]))
    .digest('hex');
  return { key, actionTemplate, startPath };
}
