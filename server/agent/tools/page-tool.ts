import type { Locator, Page } from 'playwright-core';
import { z } from 'zod';

import type { EgressPolicy } from '../../egress/egress-policy';
import { describeElement, elementLocator, type ObservedElement, type PageSnapshot, type Redactor } from '../observation';
import { fillPlaceholders, type ParameterSlot, UnknownPlaceholderError } from '../planner/placeholders';
import { remaining, ToolError } from '../result/errors';

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
  run: { signal: AbortSignal; deadline: number };
}

/** What a successful page action returns: text for the model, and what a trajectory needs to repeat it. */
export interface ToolOutcome {
  message: string;
  target?: ObservedElement;
  /** Arguments to store in a trajectory (templates, never filled-in values); absent = not recorded (extract). */
  record?: Record<string, unknown>;
}

export interface PageTool<N extends string = string> {
  name: N;
  description: string;
  params: z.ZodTypeAny;
  execute(args: Record<string, unknown>, tc: ToolContext): Promise<ToolOutcome>;
}

/** Declares a page tool (keeps its name's literal type for the registry's union of names). */
export const pageTool = <N extends string>(tool: PageTool<N>): PageTool<N> => tool;

export const ACTION_TIMEOUT_MS = 8_000;
export const MAX_TEXT = 5_000;

export const elementIndex = z.number().int().min(1).describe('Index of the element in the latest observation, the number in [brackets].');
export const templated = (what: string) =>
  z
    .string()
    .min(1)
    .max(MAX_TEXT)
    .describe(`${what} Write parameters as their placeholders, e.g. {{parameters.text}}; they are filled in when the action runs.`);

export function fill(template: string, tc: ToolContext): string {
  try {
    return fillPlaceholders(template, tc.slots);
  } catch (err) {
    if (err instanceof UnknownPlaceholderError) throw new ToolError(err.message);
    throw err;
  }
}

export async function target(tc: ToolContext, i: number): Promise<{ el: ObservedElement; loc: Locator }> {
  const el = tc.snapshot.elements.find((e) => e.index === i);
  if (!el) throw new ToolError(`there is no element [${i}] in the latest observation`);
  const loc = elementLocator(tc.page, i);
  if ((await loc.count()) === 0)
    throw new ToolError(`element [${i}] (${describeElement(el)}) is no longer on the page; the page changed, look at the new observation`);
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

export async function act<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ToolError) throw err;
    throw new ToolError(`${what} failed: ${playwrightMessage(err)}`, /ERR_BLOCKED|blocked/i.test(String(err)), { cause: err });
  }
}

/** After an action: let a navigation or re-render start, then wait until the document is loaded. */
export async function settle(tc: Pick<ToolContext, 'page' | 'run'>, ms = 200): Promise<void> {
  await tc.page.waitForTimeout(Math.min(ms, remaining(tc.run, ms))).catch(() => undefined);
  await tc.page.waitForLoadState('domcontentloaded', { timeout: remaining(tc.run, 10_000) }).catch(() => undefined);
}

export const timeout = (tc: ToolContext) => remaining(tc.run, ACTION_TIMEOUT_MS);
