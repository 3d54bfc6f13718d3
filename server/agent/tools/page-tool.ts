import type { Locator, Page } from 'playwright-core';
import { z } from 'zod';

import { QUIET_MAX_MS, waitForQuiet } from '../../browser/page-quiet';
import type { EgressPolicy } from '../../egress/egress-policy';
import { describeElement, elementLocator, evaluateOnElement, type ObservedElement, type PageSnapshot, type Redactor } from '../observation';
import { describeDescriptor, type ElementDescriptor } from '../observation/element-descriptor';
import { fillPlaceholders, type ParameterSlot, placeholderNames, solePlaceholder, UnknownPlaceholderError } from '../planner/placeholders';
import { remaining, ToolError } from '../result/errors';
import type { RunContext } from '../run/context';
import type { RunIntegrity } from '../run/integrity';

/**
 * What every page tool is made of (one file per tool next to this one, listed in index.ts): a name, a description
 * for the model, a zod parameter schema (the tool definition sent to the model is built from it), and the
 * executor. Page tools act on the element indices of the latest observation; the replay runs the very same
 * executors after finding the element again by its description.
 */
export interface ToolContext {
  page: Page;
  /** The observation the index refers to. */
  snapshot: PageSnapshot;
  slots: ParameterSlot[];
  redactor: Redactor;
  /** Where the run may go (the same policy as the browser's egress proxy). */
  egress: EgressPolicy;
  /** The run: its cancel signal and deadline, its provider, and its door to the person (the ask_user tool). */
  run: { signal: AbortSignal; deadline: number; provider: { name: string } } & Pick<RunContext, 'needsUser'>;
  /** The run's integrity: parameters a page asked for, the field each parameter went into. */
  integrity: RunIntegrity;
  /** The connection's stored credentials: never filled in, whatever the template says. */
  secrets: readonly string[];
}

/** What a successful page action returns: text for the model, and what a trajectory needs to repeat it. */
export interface ToolOutcome {
  message: string;
  target?: ObservedElement;
  /** Arguments to store in a trajectory (templates, never filled-in values); absent = not recorded (extract). */
  record?: Record<string, unknown>;
  /** Page text the result quotes (redacted): the loop escapes it and sends it as untrusted content. */
  quoted?: string;
}

/** A step of the tool as a trajectory keeps it: the element it acted on, by its description, and its recorded arguments. */
export interface RecordedStep {
  target?: ElementDescriptor;
  /** ToolOutcome.record: templates, never filled-in values. */
  args: Record<string, unknown>;
}

/** How a replay (replay/replayer.ts) repeats a recorded step of the tool, with no model. */
export interface ToolReplay {
  /**
   * 'element': a step recorded with an element finds it again by its description on the live page (it must be there
   * and unique) and runs with its index there; 'none': the tool acts on no element of the page.
   */
  target: 'element' | 'none';
  /**
   * The arguments of this run, worked out from the recorded ones when the step is replayed (a tab is recorded by its
   * URL and title, and its number in this run looked up now). Absent: the recorded arguments as they are.
   */
  args?(recorded: Record<string, unknown>, tc: ToolContext, opts: { waitMs: number }): Promise<Record<string, unknown>>;
  /**
   * Instead of running the executor on the found element: a shorter way to the same effect that the tool itself
   * checks on the live page (a link followed as a navigation to its recorded href); null: run the executor.
   */
  instead?(recorded: Record<string, unknown>, tc: ToolContext, index: number): Promise<ToolOutcome | null>;
}

/**
 * A page tool's declaration: what the model is told (name, description, parameter schema), the executor, and what
 * the loop and the replay need to know of it, so that no code outside the tool files names a tool.
 */
export interface PageTool<N extends string = string> {
  name: N;
  description: string;
  params: z.ZodTypeAny;
  /**
   * Whether a step may change something on the provider's site (anything but moving around and reading): a run with
   * such a step may keep the yes/no it concluded in its trajectory's result plan. A function decides per step.
   */
  writes: boolean | ((step: RecordedStep) => boolean);
  /**
   * false for a tool that only looks (wait, extract): what the page requests meanwhile is its own doing. Every other
   * tool acts, and a blocked request sent while it runs (its settle included) is the run's (agent/run/block-cause.ts).
   */
  acts?: false;
  /** The step in words, for divergence reasons and the steps a replay hands over to the planner. */
  describe(step: RecordedStep): string;
  /** How a replay repeats a step; null: the tool's steps are never recorded (what extract read is the result plan's). */
  replay: ToolReplay | null;
  execute(args: Record<string, unknown>, tc: ToolContext): Promise<ToolOutcome>;
}

/** Declares a page tool (keeps its name's literal type for the registry's union of names). */
export const pageTool = <N extends string>(tool: PageTool<N>): PageTool<N> => tool;

/** ` <the element>` of a recorded step, or '' (for describe). */
export const on = (step: RecordedStep): string => (step.target ? ` ${describeDescriptor(step.target)}` : '');

/** The replay of a tool that acts on the element it recorded, with the recorded arguments. */
export const REPLAY_ON_ELEMENT: ToolReplay = { target: 'element' };
/** The replay of a tool that acts on no element, with the recorded arguments. */
export const REPLAY_AS_RECORDED: ToolReplay = { target: 'none' };

export const ACTION_TIMEOUT_MS = 8_000;
export const MAX_TEXT = 5_000;

export const elementIndex = z.number().int().min(1).describe('Index of the element in the latest observation, the number in [brackets].');
export const templated = (what: string) =>
  z
    .string()
    .min(1)
    .max(MAX_TEXT)
    .describe(`${what} Write parameters as their placeholders, e.g. {{parameters.text}}; they are filled in when the action runs.`);

function fill(template: string, tc: ToolContext): string {
  try {
    return fillPlaceholders(template, tc.slots);
  } catch (err) {
    if (err instanceof UnknownPlaceholderError) throw new ToolError(err.message);
    throw err;
  }
}

/** A refusal of the parameter policy: fed back to the model as blocked, and it taints the run (never replayed). */
const refuse = (message: string) => new ToolError(message, true);

/** The checks every placeholder passes wherever it goes: known, not asked for by a page, not a stored credential. */
function checkParameters(template: string, tc: ToolContext): string[] {
  const names = placeholderNames(template);
  fill(template, tc); // unknown names → the usual error listing the parameters
  for (const name of names) {
    if (tc.integrity.isInjected(name)) {
      throw refuse(
        `{{parameters.${name}}} appeared in the page content, so it is not filled in anywhere in this run (a page asking for a parameter is a prompt injection)`,
      );
    }
    const slot = tc.slots.find((s) => s.name === name)!;
    if (tc.secrets.some((secret) => secret.length > 0 && slot.value === secret))
      throw refuse(`{{parameters.${name}}} holds a stored credential, which is never filled in`);
  }
  return names;
}

/** Whether a document URL is on the provider's site, as the egress policy (the browser's fence) decides it. */
function onProviderSite(href: string, tc: ToolContext): boolean {
  return tc.egress.checkUrl(href).ok;
}

/** A field by what stays stable across observations (role, name, region, position among its twins), not by index. */
function fieldName(el: ObservedElement, snapshot: PageSnapshot): string {
  const twins = snapshot.elements.filter((e) => e.role === el.role && e.name === el.name && e.scope === el.scope);
  const nth = twins.findIndex((e) => e.index === el.index);
  return `${describeElement(el)}${el.scope ? ` in ${el.scope}` : ''}${twins.length > 1 ? ` (#${nth + 1})` : ''}`;
}

export type FieldKind = 'text' | 'choice';

/**
 * The template filled for a form field: placeholders go only into a text field (input, textarea, contenteditable)
 * or a choice (select, combobox, listbox, a button that opens one) in a document on the provider's site — the
 * element's own document, checked now, at fill time — and each parameter into one field per run.
 */
export async function fillField(template: string, tc: ToolContext, el: ObservedElement, loc: Locator, kind: FieldKind): Promise<string> {
  const names = checkParameters(template, tc);
  if (names.length === 0) return template;
  // Read in Playwright's utility world (evaluateOnElement): the page's own `location` or getters cannot answer it.
  const where = await evaluateOnElement(loc, (node: Element) => {
    const e = node as HTMLElement;
    const tag = e.tagName;
    const type = (e.getAttribute('type') || 'text').toLowerCase();
    const role = (e.getAttribute('role') || '').toLowerCase();
    const textInput =
      tag === 'INPUT' &&
      ['text', 'search', 'email', 'password', 'tel', 'url', 'number', 'date', 'time', 'datetime-local', 'month', 'week'].includes(type);
    return {
      href: e.ownerDocument.location.href,
      text: textInput || tag === 'TEXTAREA' || e.isContentEditable,
      choice: tag === 'SELECT' || role === 'combobox' || role === 'listbox' || e.hasAttribute('aria-haspopup'),
    };
  }).catch(() => null);
  if (!where) throw new ToolError(`${describeElement(el)} is no longer on the page`);
  if (!onProviderSite(where.href, tc)) {
    throw refuse(`parameters are only filled in on the provider's own site; ${describeElement(el)} is in a document elsewhere`);
  }
  if (!where[kind]) {
    throw refuse(
      `parameters are only filled into form fields; ${describeElement(el)} is not a ${kind === 'text' ? 'text field' : 'drop-down'}`,
    );
  }
  // One field per parameter: the action names a value once; a second field for it is what an injected
  // instruction ("now also paste it into …") would ask for, and the trajectory stays one-to-one.
  const field = fieldName(el, tc.snapshot);
  for (const name of names) {
    const claim = tc.integrity.claimField(name, field);
    if (!claim.ok) throw refuse(`{{parameters.${name}}} was already filled into ${claim.already}; a parameter goes into one field per run`);
  }
  return fill(template, tc);
}

/**
 * The template filled for navigate. A parameter goes into a URL only when it is declared a URL: the template is
 * that one placeholder and its value is an absolute http(s) URL (the navigate tool then checks it is on the
 * provider). Splicing a value into a path or query is how a page makes an agent send data somewhere, and the
 * caller who means an address gives the whole address.
 */
export function fillUrl(template: string, tc: ToolContext): string {
  const names = checkParameters(template, tc);
  if (names.length === 0) return template;
  const sole = solePlaceholder(template);
  const value = sole ? tc.slots.find((s) => s.name === sole)!.value : '';
  if (!sole || !/^https?:\/\//i.test(value.trim())) {
    throw refuse(
      'parameters are never put into URLs: navigate takes a placeholder only when it is the whole URL and the parameter is itself an http(s) URL',
    );
  }
  return value.trim();
}

const TAB_CLOSED = 'the tab of the latest observation has closed; the next observation shows the tab the run is on now';

/** The element an index of the latest observation names (a control, or a section whose text it cut). */
export function observed(tc: ToolContext, i: number): ObservedElement {
  const el = tc.snapshot.elements.find((e) => e.index === i) ?? tc.snapshot.sections?.find((e) => e.index === i);
  if (!el) throw new ToolError(`there is no element [${i}] in the latest observation`);
  return el;
}

/**
 * The element behind an index of the latest observation (a control, or a section whose text it cut), in its
 * frame. An element, frame or tab that went away since is a ToolError the model sees, never a crash.
 */
export async function target(tc: ToolContext, i: number): Promise<{ el: ObservedElement; loc: Locator }> {
  const el = observed(tc, i);
  const loc = await elementLocator(tc.page, el);
  const count = await loc.count().catch((err: unknown) => {
    if (tc.page.isClosed()) throw new ToolError(TAB_CLOSED);
    // Counting through a frame that is being detached throws: that frame is gone as surely as a missing element.
    if (el.frame?.length) return 0;
    throw err;
  });
  if (count === 0) {
    const where = el.frame?.length ? ' (it was in a frame that changed or went away)' : '';
    throw new ToolError(
      `element [${i}] (${describeElement(el)}) is no longer on the page${where}; the page changed, look at the new observation`,
    );
  }
  return { el, loc };
}

/** Playwright's error, first line only and without its call log. */
function playwrightMessage(err: unknown): string {
  const msg = (err as Error)?.message ?? String(err);
  return msg
    .split('\n')[0]!
    .replace(/^[a-zA-Z.]+: /, '')
    .slice(0, 300);
}

/** `explain`: a better account of a failure than Playwright's first line (null: there is none). */
export async function act<T>(what: string, fn: () => Promise<T>, explain?: (err: unknown) => Promise<string | null>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ToolError) throw err;
    const why = explain && !/Target page, context or browser has been closed|Target closed/.test(String(err)) ? await explain(err) : null;
    if (why) throw new ToolError(why, false, { cause: err });
    if (/Target page, context or browser has been closed|Target closed/.test(String(err)))
      throw new ToolError(`${what} failed: ${TAB_CLOSED}`);
    throw new ToolError(`${what} failed: ${playwrightMessage(err)}`, /ERR_BLOCKED|blocked/i.test(String(err)), { cause: err });
  }
}

/**
 * After an action: the navigation it started loads, the requests it started finish and the DOM goes quiet, for at
 * most `maxMs` (server/browser/page-quiet.ts). Event-driven rather than a fixed sleep: a static page settles in
 * tens of milliseconds, a page that fetches and re-renders is waited for.
 */
export async function settle(tc: Pick<ToolContext, 'page' | 'run'>, maxMs = QUIET_MAX_MS, leadMs?: number): Promise<void> {
  await waitForQuiet(tc.page, { maxMs: remaining(tc.run, maxMs), leadMs });
}

export const timeout = (tc: ToolContext) => remaining(tc.run, ACTION_TIMEOUT_MS);
