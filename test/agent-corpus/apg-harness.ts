import { isDeepStrictEqual } from 'node:util';

import type { Browser, Page } from 'playwright-core';

import type { ProviderDefinition } from '../../server/providers/provider';
import { type ApgSite, startApgSite } from '../fixtures/apg/server';
import { startBrowser } from '../support/live-server';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scripted-model-server';
import { openFencedPage, type PickerRun, runWithLabelPicker } from './corpus-harness';

/**
 * The public corpus: tasks on the W3C ARIA Authoring Practices Guide examples (test/fixtures/apg/, pages copied
 * unmodified), each run through the REAL planner loop in real Chromium with the label-picking model (./label-picker.ts),
 * which acts only on what the observation names. A task passes when the run completed, its answer (if it asks for
 * one) is right, AND the state the task changes, read from the page's DOM after the run, is what it should be: a
 * run that says "done" after clicking the wrong thing fails.
 */
export interface ApgTask {
  id: string;
  /** The example page, under the guide's patterns/ folder. */
  page: string;
  /** The action as a user asks for it (the planner's Action). */
  action: string;
  /** The APG pattern the task exercises (tree, menu button, combobox, grid, dialog, …). */
  pattern: string;
  /** Person-phrased steps for the label-picking model (./steps.ts). */
  steps: string[];
  /** A JavaScript expression evaluated in the page after the run: the state the task changes. */
  state: string;
  /** What `state` must be (a function: computed when checked, for what depends on today's date). */
  expected: unknown;
  /** The answer the run must give, for a task that asks for one. */
  answer?: Record<string, string>;
  /** Part of the quick subset that runs in `npm test` (the bench runs every task). */
  quick?: boolean;
}

export interface ApgRun extends PickerRun {
  /** `state` read from the page after the run (or the error reading it). */
  state: unknown;
}

export interface ApgRig {
  site: ApgSite;
  browser: Browser;
  model: ScriptedModelServer;
}

export async function startApgRig(): Promise<ApgRig> {
  const [site, browser, model] = await Promise.all([startApgSite(), startBrowser(), startScriptedModelServer()]);
  return { site, browser, model };
}

export async function stopApgRig(rig: Partial<ApgRig>): Promise<void> {
  await rig.browser?.close();
  await rig.site?.close();
  await rig.model?.close();
}

/** The guide's example site as a provider: one origin on loopback; what the pages load from the internet is refused. */
export function apgProvider(site: Pick<ApgSite, 'origin' | 'url'>): ProviderDefinition {
  return {
    providerId: 'a9a0c0de-0000-4000-8000-0000000a9a00',
    name: 'ARIA Authoring Practices examples',
    slug: 'apg',
    category: 'developer',
    environment: 'sandbox',
    homeUrl: site.url('/patterns/'),
    loginUrl: site.url('/patterns/'),
    allowedOrigins: ['127.0.0.1'],
    logo: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>',
    login: {
      usernameLabel: 'Email',
      form: { username: { label: 'Email' }, password: { label: 'Password' }, submit: { role: 'button', name: 'Sign in' } },
      success: [],
      invalidCredentials: [],
      locked: [],
    },
  };
}

export const apgUrl = (site: Pick<ApgSite, 'url'>, page: string) => site.url(`/patterns/${page}`);

async function readState(page: Page, expression: string): Promise<unknown> {
  try {
    return await page.evaluate(expression);
  } catch (err) {
    return { error: (err as Error).message.split('\n')[0] };
  }
}

export async function runApgTask(rig: ApgRig, task: ApgTask): Promise<ApgRun> {
  const opened = await openFencedPage(rig.browser, apgProvider(rig.site), apgUrl(rig.site, task.page));
  try {
    const run = await runWithLabelPicker(rig.model, opened, task);
    // The page the run ended on (the examples open no tabs; a run that did is read where it left off).
    const pages = opened.context.pages();
    const page = pages.includes(opened.page) ? opened.page : pages[pages.length - 1]!;
    return { ...run, state: await readState(page, task.state) };
  } finally {
    await opened.context.close();
  }
}

/** What is wrong with a run of a task (empty when it passed). */
export function problems(task: ApgTask, run: ApgRun): string[] {
  const out: string[] = [];
  const o = run.outcome;
  if (o.status !== 'completed') out.push(`the run did not complete (${o.status})`);
  else if (task.answer && !isDeepStrictEqual(o.result, task.answer))
    out.push(`answer ${JSON.stringify(o.result)}, expected ${JSON.stringify(task.answer)}`);
  const expected = typeof task.expected === 'function' ? (task.expected as () => unknown)() : task.expected;
  if (!isDeepStrictEqual(run.state, expected)) out.push(`page state ${JSON.stringify(run.state)}, expected ${JSON.stringify(expected)}`);
  return out;
}

/** A readable account of a run, for a failing task's message. */
export function explainApg(run: ApgRun): string {
  const o = run.outcome;
  const head =
    o.status === 'completed'
      ? `completed with ${JSON.stringify(o.result)}`
      : `${o.status}: ${'code' in o ? `${o.code} ` : ''}${'message' in o ? o.message : o.reason}`;
  return [
    head,
    'model:',
    ...run.log.map((l) => `  ${l}`),
    'trace:',
    ...run.trace.map((s) => `  ${s.tool}${s.target ? ` ${s.target}` : ''} → ${s.outcome}${s.error ? `: ${s.error}` : ''}`),
    `page state: ${JSON.stringify(run.state)}`,
  ].join('\n');
}
