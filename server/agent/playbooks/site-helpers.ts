import type { Locator, Page, Response } from 'playwright-core';
import { z } from 'zod';

import type { UserAsk } from '../handoff/user-ask';
import { runEnded, runNow } from '../run/clock';
import { PARAM_ALIASES } from './fill-parameters';
import type { PlaybookContext } from './registry';

/**
 * Small pieces shared by the built-in playbooks: navigation inside the provider, waiting for a condition,
 * text normalisation, and parameter helpers (aliases of parameter names, trimmed strings).
 */

/** Whitespace collapsed, as a person reads rendered text. */
export const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();

/** For comparing names: lower case, accents removed, whitespace collapsed, a leading @ dropped. */
export const fold = (text: string) => collapse(text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()).replace(/^@/, '');

/** An absolute URL on the provider's site. */
export const siteUrl = (ctx: PlaybookContext<unknown>, path: string) => new URL(path, ctx.provider.homeUrl).toString();

export const pathOf = (page: Page) => {
  const u = new URL(page.url());
  return decodeURIComponent(u.pathname);
};

/** Loads a path of the provider's site as one traced step; fails on an error status unless `allow404`. */
export async function openPath(
  ctx: PlaybookContext<unknown>,
  path: string,
  target: string,
  opts: { notFound?: string } = {},
): Promise<Response | null> {
  return ctx.step('navigate', target, async () => {
    const res = await ctx.page.goto(siteUrl(ctx, path), { waitUntil: 'domcontentloaded' });
    if (res && res.status() === 404 && opts.notFound) throw new Error(opts.notFound);
    if (res && res.status() >= 400) throw new Error(`${path} answered HTTP ${res.status()}`);
    return res;
  });
}

/**
 * Polls `check` until it returns a value other than undefined/false, or fails after `timeoutMs` of the run's own
 * time (run/clock.ts): while the run waits for its end user (NEEDS_USER) the clock stands still, so a wait that spans
 * the pause is not timed out by the minutes the person took. Outside a run it is wall-clock time. Stops when the run
 * is over: a canceled run's step polled its closed page until its own deadline, 15 s of a process that had moved on.
 */
export async function until<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 15_000, everyMs = 100): Promise<T> {
  const deadline = runNow() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    if (runEnded()) throw new Error(`the run ended while waiting for ${what}`);
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      lastError = err;
    }
    if (runNow() > deadline) {
      const why = lastError instanceof Error ? ` (${lastError.message.split('\n')[0]})` : '';
      throw new Error(`timed out waiting for ${what}${why}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Clicks the control that sends a write. The write may be held at the network until the person approves it (approval
 * `writes`), for as long as the ask lives: minutes. Playwright's click waits for a navigation it started (a form's
 * POST) to commit, under the page's action timeout (at most 20 s, wall time), so a person slower than that failed
 * the run. This click returns once clicked; the step's own wait for the outcome (`until`, run time) does the waiting.
 */
export const clickToSend = (control: Locator): Promise<void> => control.click({ noWaitAfter: true });

/**
 * Until `target` is visible, in run time: the wait after a write. A Playwright `waitFor` counts in wall time, so a
 * person's minutes approving the write (the run paused) timed it out.
 */
export const untilVisible = (what: string, target: Locator, timeoutMs: number): Promise<true> =>
  until(what, async () => (await target.isVisible()) || undefined, timeoutMs);

/**
 * Pauses the run for its end user as one step of the trace (tool `user`, e.g. "code asked by Orbit"): a site asks
 * mid-action for what only the person has (a code sent to their phone, their password), and the person does it on
 * this very page through the live view. Resolves once `ask.done` sees the page past the step (or the person says
 * so: a playbook checks the outcome afterwards either way). When the person leaves, or nobody can be asked, the
 * door's error passes through ctx.step unchanged and ends the run with its code.
 */
export const askPerson = (ctx: PlaybookContext<unknown>, target: string, ask: UserAsk): Promise<void> =>
  ctx.step('user', target, () => ctx.needsUser(ask));

/** The time left before the run's deadline (both in run time: a pause for the user does not use it up), bounded, for waits inside a step. */
export const waitBudget = (ctx: Pick<PlaybookContext<unknown>, 'deadline'>, max = 15_000) =>
  Math.max(1000, Math.min(max, ctx.deadline - runNow()));

/**
 * Accepts a parameter under other common names (e.g. `content` or `message` for `text`): the first alias
 * present is moved to the canonical name unless that is set already. Other keys are left for the schema
 * (a strict schema then rejects what the playbook does not understand, so the request is not applicable).
 */
export function withParamAliases<T extends z.ZodTypeAny>(aliases: Record<string, string[]>, schema: T) {
  // The aliases travel with the schema: values from the action fill a parameter only when no alias gave it.
  return Object.assign(withAliases(aliases, schema), { [PARAM_ALIASES]: aliases });
}

function withAliases<T extends z.ZodTypeAny>(aliases: Record<string, string[]>, schema: T) {
  return z.preprocess((raw) => {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw;
    const input = { ...(raw as Record<string, unknown>) };
    for (const [canonical, names] of Object.entries(aliases)) {
      for (const name of names) {
        if (!(name in input)) continue;
        if (input[canonical] === undefined) input[canonical] = input[name];
        delete input[name];
      }
    }
    return input;
  }, schema);
}

/** A case-insensitive enum of words ('Public' → 'public'). */
/** How many items of a list to read, as people give it (5 or "5"): 1 … max. */
export const listLimit = (max: number) =>
  z.preprocess((v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v), z.number().int().min(1).max(max));

export const looseEnum = <T extends [string, ...string[]]>(values: T) =>
  z.preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v), z.enum(values));

/** "owner/name" of a ForgeHub/GitHub-style repository. */
export const REPOSITORY_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}\/[A-Za-z0-9._-]{1,100}$/;
