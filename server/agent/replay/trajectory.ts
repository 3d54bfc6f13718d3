import { createHash } from 'node:crypto';

import type { LeafBinding, ListBinding } from '../observation/dom/binding.page';
import { describeDescriptor, type ElementDescriptor } from '../observation/element-descriptor';
import { normalizedActionTemplate, type ParameterSlot, templateOf } from '../planner/placeholders';
import { type PageToolName, pageToolNamed, type RecordedStep } from '../tools';
import type { LeafCheck } from './leaf-check.page';
import type { ListCheck } from './list-check.page';

export { describeDescriptor, descriptorOf, type ElementDescriptor, resolveDescriptor } from '../observation/element-descriptor';

/**
 * A trajectory: what a successful planner run did, stored so the same action can be repeated without the
 * model. Steps name their element by role, accessible name and the labelled region around it (never by the
 * observation's index); typed text is kept as its template ("{{parameters.text}}"), never the value; the
 * result is kept as a plan for reading it from the live page again. Entries are versioned and keyed by
 * hash(version, owner, provider, mode, action template, starting path, parameter names): any mismatch is a miss.
 *
 * Version 2 put the run's mode into the key. Version 1 entries recorded no mode anywhere, so they cannot be sorted by
 * it: their keys are never computed again (the version is hashed in), so they are not found (migration
 * 1763720000000 deletes them), and the planner records the action afresh in each mode.
 *
 * Version 3 keeps, with each list the result reads, what made it right (list-check.page.ts), checked before a replay
 * answers; a version 2 list has nothing to check, so it is never replayed (migration 1763721000000 deletes those rows).
 */
export const TRAJECTORY_VERSION = 3;

/**
 * The request's mode. A read run's steps were judged with every write and WebSocket message held by the proxy (a
 * held message the page sent on its own is noise there, not a taint), so the same steps say nothing about what would
 * go out in read_write; and a read_write recording may click what read mode must not. Each mode learns its own.
 */
export type TrajectoryMode = 'read' | 'read_write';

export interface TrajectoryStep extends RecordedStep {
  /** A tool that is replayed (its declaration has `replay`: every page tool but extract). */
  tool: PageToolName;
  target?: ElementDescriptor;
  /**
   * Tool arguments without the index, as the tool recorded them: templates (text, option, url), key, direction,
   * seconds, submit; a tab step holds the tab's URL and title instead of its number, which differs between runs.
   */
  args: Record<string, unknown>;
}

/**
 * Where the value of one leaf of a result stands on a page, and where a list's items and their fields do (with the
 * rule that selects them, when the answer is not the first items of the list): built and read by the observation's
 * page code (observation/dom/binding.page.ts, list-rule.page.ts). A rule's filter value may be a string
 * parameter's placeholder, filled in before the page reads it.
 */
export type { LeafBinding, ListBinding } from '../observation/dom/binding.page';

export type ValueKind = 'string' | 'number' | 'boolean';

export type ResultPlan =
  | { kind: 'object'; properties: Record<string, ResultPlan> }
  /** A yes/no (or null) the planner concluded after acting; only kept for trajectories that change something. */
  | { kind: 'const'; value: boolean | null | string }
  /** A string built from parameters ("{{parameters.text}}"). */
  | { kind: 'template'; template: string }
  /** `check`: the ancestry of the value's element when recorded, checked before a replay answers (leaf-check.page.ts). */
  | { kind: 'page'; binding: LeafBinding; check?: LeafCheck }
  /** `check`: what made the list right when recorded, checked on the live page before a replay answers (list-check.page.ts). */
  | { kind: 'list'; list: ListBinding; item: ResultPlan; check?: ListCheck }
  /** Inside a list item: the n-th field read from the item ('day': a relative day read back as its date). */
  | { kind: 'field'; field: number; as: 'string' | 'number' | 'day' };

export interface Trajectory {
  version: number;
  /** The mode it was recorded in (it is also in the key); checked again when it is found. */
  mode: TrajectoryMode;
  startPath: string;
  parameterNames: string[];
  steps: TrajectoryStep[];
  result: ResultPlan;
}

/** How a recorded step reads (divergence reasons, the steps a replay hands over to the planner): the tool says. */
export function describeStep(s: TrajectoryStep): string {
  return pageToolNamed(s.tool)?.describe(s) ?? `${s.tool}${s.target ? ` ${describeDescriptor(s.target)}` : ''}`;
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

/**
 * `scope` is the owner (organization:environment): one organization's learned steps never replay for another.
 * `mode` is in the key (rather than only a stored column checked after the lookup) so that by construction a lookup
 * for one mode can never reach a row recorded in the other: there is no code path that could forget the check.
 */
export function trajectoryKey(i: {
  scope: string;
  providerId: string;
  mode: TrajectoryMode;
  action: string;
  startingUrl: string;
  slots: ParameterSlot[];
}): {
  key: string;
  actionTemplate: string;
  startPath: string;
} {
  const actionTemplate = normalizedActionTemplate(i.action, i.slots);
  const startPath = normalizeStartPath(i.startingUrl, i.slots);
  const key = createHash('sha256')
    .update(JSON.stringify([TRAJECTORY_VERSION, i.scope, i.providerId, i.mode, actionTemplate, startPath, parameterKeyParts(i.slots)]))
    .digest('hex');
  return { key, actionTemplate, startPath };
}
