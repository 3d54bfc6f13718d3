import { generateSchema } from '@anatine/zod-openapi';
import type { Locator, Page } from 'playwright-core';
import { z } from 'zod';
import { hostMatchesDomain } from '../../domain/starting-url.policy';
import type { JsonSchema } from '../../../contract/response-format';
import {
  describeElement,
  elementLocator,
  extractText,
  type ObservedElement,
  OPTION_ATTRIBUTE,
  type PageSnapshot,
  quote,
  type Redactor,
  runDom,
} from '../observation';
import type { ToolDefinition } from '../model/chat-client';
import { remaining, ToolError } from '../result/errors';
import { fillPlaceholders, type ParameterSlot, UnknownPlaceholderError } from './placeholders';

/**
 * The agent's tools, in one registry (browser-use): each has a name, a description for the model and a zod
 * parameter schema, from which the tool definitions sent to the model are built. Page tools act on the
 * element indices of the latest observation; the replay runs the very same executors after finding the
 * element again by its description. `done` and `fail` end the run and are handled by the loop.
 */
export interface ToolContext {
  page: Page;
  /** The observation the index refers to. */
  snapshot: PageSnapshot;
  slots: ParameterSlot[];
  redactor: Redactor;
  allowedDomains: string[];
  run: { signal: AbortSignal; deadline: number };
}

/** What a successful page action returns: text for the model, and what a trajectory needs to repeat it. */
export interface ToolOutcome {
  message: string;
  target?: ObservedElement;
  /** Arguments to store in a trajectory (templates, never filled-in values); absent = not recorded (extract). */
  record?: Record<string, unknown>;
}

const ACTION_TIMEOUT_MS = 8_000;
const MAX_TEXT = 5_000;

const index = z.number().int().min(1).describe('Index of the element in the latest observation, the number in [brackets].');
const templated = (what: string) =>
  z.string().min(1).max(MAX_TEXT).describe(`${what} Write parameters as their placeholders, e.g. {{parameters.text}}; they are filled in when the action runs.`);

export const PAGE_TOOLS = {
  navigate: {
    description: "Open a URL in the current tab. Only the provider's own site can be opened; relative paths are resolved against the current page.",
    params: z.object({ url: templated('Absolute URL or path.') }).strict(),
  },
  click: {
    description: 'Click an element (button, link, checkbox, tab, option …).',
    params: z.object({ index }).strict(),
  },
  type: {
    description: 'Type text into a text field, search box, text area or rich-text editor, replacing what it holds. Set submit to press Enter afterwards.',
    params: z
      .object({
        index,
        text: templated('The text to type.'),
        submit: z.boolean().optional().describe('Press Enter after typing.'),
      })
      .strict(),
  },
  select: {
    description: 'Choose an option in a drop-down: a native <select>, or a custom one (a button or combobox that opens a listbox). Give the option by its visible label.',
    params: z.object({ index, option: templated('The label (or value) of the option to choose.') }).strict(),
  },
  press: {
    description: 'Press a key or key combination (Enter, Escape, Tab, ArrowDown, Control+A …), on an element or on the page.',
    params: z
      .object({
        key: z.string().regex(/^(?:(?:Control|Shift|Alt|Meta)\+)*(?:[A-Za-z0-9]|Enter|Tab|Escape|Backspace|Delete|Space|Home|End|PageUp|PageDown|ArrowUp|ArrowDown|ArrowLeft|ArrowRight|F[1-9]|F1[0-2])$/),
        index: index.optional(),
      })
      .strict(),
  },
  scroll: {
    description: 'Scroll the page up or down by about one screen, or bring an element into view (to load more content).',
    params: z.object({ direction: z.enum(['up', 'down']).default('down'), index: index.optional() }).strict(),
  },
  wait: {
    description: 'Wait for the page to update (content that loads after a moment).',
    params: z.object({ seconds: z.number().min(0.1).max(10).default(1) }).strict(),
  },
  extract: {
    description: 'Read the full visible text of one element (by index) or, without index, of the main part of the page. Use it when the observation shortened the text you need.',
    params: z.object({ index: index.optional() }).strict(),
  },
} as const;

export const FINAL_TOOLS = {
  done: {
    description:
      'Finish: the action is complete. Set success to true and put the requested result in data, exactly in the shape of its JSON Schema. Set success to false only when the action turned out to be impossible.',
  },
  fail: {
    description: 'Give up: the action cannot be done on this site (say why). Prefer trying another way first.',
    params: z.object({ reason: z.string().min(1).max(1000) }).strict(),
  },
} as const;

export type PageToolName = keyof typeof PAGE_TOOLS;
export type ToolName = PageToolName | keyof typeof FINAL_TOOLS;

function jsonSchemaOf(schema: z.ZodTypeAny): Record<string, unknown> {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'nullable').map(([k, x]) => [k, strip(x)]));
    }
    return v;
  };
  return strip(generateSchema(schema)) as Record<string, unknown>;
}

/** The tool definitions for the model; `done.data` carries the caller's result schema. */
export function toolDefinitions(resultSchema: JsonSchema): ToolDefinition[] {
  const defs: ToolDefinition[] = Object.entries(PAGE_TOOLS).map(([name, t]) => ({
    type: 'function',
    function: { name, description: t.description, parameters: jsonSchemaOf(t.params) },
  }));
  defs.push({
    type: 'function',
    function: {
      name: 'done',
      description: FINAL_TOOLS.done.description,
      parameters: {
        type: 'object',
        properties: {
          success: { type: 'boolean', description: 'true when the action is complete.' },
          data: { ...resultSchema, description: 'The result, matching this schema exactly.' },
        },
        required: ['success', 'data'],
        additionalProperties: false,
      },
    },
  });
  defs.push({ type: 'function', function: { name: 'fail', description: FINAL_TOOLS.fail.description, parameters: jsonSchemaOf(FINAL_TOOLS.fail.params) } });
  return defs;
}

export type ParsedCall =
  | { name: PageToolName; args: Record<string, unknown> }
  | { name: 'done'; args: { success: boolean; data: unknown } }
  | { name: 'fail'; args: { reason: string } };

const DoneArgs = z.object({ success: z.boolean(), data: z.unknown() }).passthrough();

/** Parses a tool call of the model; an unknown tool or bad arguments is a ToolError fed back to the model. */
export function parseToolCall(name: string, rawArguments: string): ParsedCall {
  let args: unknown;
  try {
    args = rawArguments.trim() ? JSON.parse(rawArguments) : {};
  } catch {
    throw new ToolError(`the arguments of ${name} are not valid JSON`);
  }
  const issues = (e: z.ZodError) => e.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ');
  if (name === 'done') {
    const r = DoneArgs.safeParse(args);
    if (!r.success) throw new ToolError(`invalid arguments for done: ${issues(r.error)}`);
    return { name, args: { success: r.data.success, data: r.data.data } };
  }
  if (name === 'fail') {
    const r = FINAL_TOOLS.fail.params.safeParse(args);
    if (!r.success) throw new ToolError(`invalid arguments for fail: ${issues(r.error)}`);
    return { name, args: r.data };
  }
  if (!(name in PAGE_TOOLS)) throw new ToolError(`there is no tool named "${name}"; the tools are ${[...Object.keys(PAGE_TOOLS), 'done', 'fail'].join(', ')}`);
  const r = PAGE_TOOLS[name as PageToolName].params.safeParse(args);
  if (!r.success) throw new ToolError(`invalid arguments for ${name}: ${issues(r.error)}`);
  return { name: name as PageToolName, args: r.data as Record<string, unknown> };
}

// ---------------------------------------------------------------------------------------------------------
// executors

function fill(template: string, tc: ToolContext): string {
  try {
    return fillPlaceholders(template, tc.slots);
  } catch (err) {
    if (err instanceof UnknownPlaceholderError) throw new ToolError(err.message);
    throw err;
  }
}

async function target(tc: ToolContext, i: number): Promise<{ el: ObservedElement; loc: Locator }> {
  const el = tc.snapshot.elements.find((e) => e.index === i);
  if (!el) throw new ToolError(`there is no element [${i}] in the latest observation`);
  const loc = elementLocator(tc.page, i);
  if ((await loc.count()) === 0) throw new ToolError(`element [${i}] (${describeElement(el)}) is no longer on the page; the page changed, look at the new observation`);
  return { el, loc };
}

/** Playwright's error, first line only and without its call log. */
function playwrightMessage(err: unknown): string {
  const msg = (err as Error)?.message ?? String(err);
  return msg.split('\n')[0]!.replace(/^[a-zA-Z.]+: /, '').slice(0, 300);
}

async function act<T>(what: string, fn: () => Promise<T>): Promise<T> {
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

const timeout = (tc: ToolContext) => remaining(tc.run, ACTION_TIMEOUT_MS);

type Executor = (args: Record<string, unknown>, tc: ToolContext) => Promise<ToolOutcome>;

const EXECUTORS: Record<PageToolName, Executor> = {
  async navigate(args, tc) {
    const template = String(args.url);
    let url: URL;
    try {
      url = new URL(fill(template, tc), tc.page.url());
    } catch (err) {
      if (err instanceof ToolError) throw err;
      throw new ToolError(`${quote(template)} is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ToolError('only http and https URLs can be opened', true);
    if (!tc.allowedDomains.some((d) => hostMatchesDomain(url.hostname, d))) {
      throw new ToolError(`${url.hostname} is outside this provider's site (${tc.allowedDomains.join(', ')}); navigation blocked`, true);
    }
    const current = new URL(tc.page.url());
    await act('navigation', () => tc.page.goto(url.toString(), { waitUntil: 'domcontentloaded', timeout: timeout(tc) }));
    // Stored relative to the site when it stays on the same origin, so a replay works on any port or host alias.
    return {
      message: `opened ${tc.redactor.text(url.pathname + url.search)}`,
      record: { url: template.startsWith(current.origin) ? template.slice(current.origin.length) || '/' : template },
    };
  },

  async click(args, tc) {
    const { el, loc } = await target(tc, Number(args.index));
    await act(`click on ${describeElement(el)}`, () => loc.click({ timeout: timeout(tc) }));
    await settle(tc);
    return { message: `clicked ${describeElement(el)}`, target: el, record: {} };
  },

  async type(args, tc) {
    const { el, loc } = await target(tc, Number(args.index));
    const template = String(args.text);
    const value = fill(template, tc);
    await act(`typing into ${describeElement(el)}`, async () => {
      await loc.fill(value, { timeout: timeout(tc) });
      if (args.submit) await loc.press('Enter', { timeout: timeout(tc) });
    });
    if (args.submit) await settle(tc);
    // The message names the template, never the filled-in value.
    return { message: `typed ${quote(template)} into ${describeElement(el)}${args.submit ? ' and pressed Enter' : ''}`, target: el, record: { text: template, ...(args.submit ? { submit: true } : {}) } };
  },

  async select(args, tc) {
    const { el, loc } = await target(tc, Number(args.index));
    const template = String(args.option);
    const option = fill(template, tc);
    let chosen: string;
    if (el.tag === 'select') {
      const options = await loc.evaluate((s) => Array.from((s as HTMLSelectElement).options).map((o) => ({ label: (o.label || o.text).trim(), value: o.value })));
      const want = option.trim().toLowerCase();
      const tests = [
        (o: { label: string; value: string }) => o.label.toLowerCase() === want,
        (o: { label: string; value: string }) => o.value.toLowerCase() === want,
        (o: { label: string; value: string }) => o.label.toLowerCase().startsWith(want),
      ];
      let i = -1;
      for (const t of tests) {
        const hits = options.map((o, k) => (t(o) ? k : -1)).filter((k) => k >= 0);
        if (hits.length === 1) {
          i = hits[0]!;
          break;
        }
      }
      if (i < 0) throw new ToolError(`no single option of ${describeElement(el)} matches ${quote(tc.redactor.text(option))}; the options are ${options.map((o) => quote(tc.redactor.text(o.label))).join(', ')}`);
      await act(`choosing in ${describeElement(el)}`, () => loc.selectOption({ index: i }, { timeout: timeout(tc) }));
      chosen = options[i]!.label;
    } else {
      if (el.role !== 'listbox' && el.states.expanded !== true) {
        await act(`opening ${describeElement(el)}`, () => loc.click({ timeout: timeout(tc) }));
      }
      let marked: { ok: true; name: string } | { ok: false; error: string } = { ok: false, error: 'no open list of options' };
      for (let attempt = 0; attempt < 15; attempt++) {
        marked = await runDom(tc.page, 'markOption', { index: Number(args.index), option });
        if (marked.ok || !/no open list/.test(marked.error)) break;
        await tc.page.waitForTimeout(Math.min(200, remaining(tc.run, 200)));
      }
      if (!marked.ok) throw new ToolError(`${describeElement(el)}: ${tc.redactor.text(marked.error)}`);
      const name = marked.name;
      await act(`choosing ${quote(name)}`, () => tc.page.locator(`[${OPTION_ATTRIBUTE}="1"]`).click({ timeout: timeout(tc) }));
      chosen = name;
    }
    await settle(tc, 100);
    return { message: `chose ${quote(tc.redactor.text(chosen))} in ${describeElement(el)}`, target: el, record: { option: template } };
  },

  async press(args, tc) {
    const key = String(args.key);
    if (args.index !== undefined) {
      const { el, loc } = await target(tc, Number(args.index));
      await act(`pressing ${key}`, () => loc.press(key, { timeout: timeout(tc) }));
      await settle(tc);
      return { message: `pressed ${key} on ${describeElement(el)}`, target: el, record: { key } };
    }
    await act(`pressing ${key}`, () => tc.page.keyboard.press(key));
    await settle(tc);
    return { message: `pressed ${key}`, record: { key } };
  },

  async scroll(args, tc) {
    const direction = args.direction === 'up' ? 'up' : 'down';
    if (args.index !== undefined) {
      const { el, loc } = await target(tc, Number(args.index));
      await act(`scrolling to ${describeElement(el)}`, () => loc.scrollIntoViewIfNeeded({ timeout: timeout(tc) }));
      await settle(tc, 300);
      return { message: `scrolled ${describeElement(el)} into view`, target: el, record: { direction } };
    }
    const height = tc.page.viewportSize()?.height ?? 800;
    await act('scrolling', () => tc.page.mouse.wheel(0, (direction === 'down' ? 1 : -1) * Math.round(height * 0.8)));
    await settle(tc, 300);
    return { message: `scrolled ${direction}`, record: { direction } };
  },

  async wait(args, tc) {
    const seconds = Number(args.seconds ?? 1);
    await tc.page.waitForTimeout(remaining(tc.run, seconds * 1000));
    return { message: `waited ${seconds} s`, record: { seconds } };
  },

  async extract(args, tc) {
    if (args.index !== undefined) await target(tc, Number(args.index));
    const res = await extractText(tc.page, args.index === undefined ? undefined : Number(args.index), tc.redactor, MAX_TEXT);
    if (!res.ok) throw new ToolError(res.error);
    return { message: res.text || '(no visible text)' };
  },
};

export function executeTool(name: PageToolName, args: Record<string, unknown>, tc: ToolContext): Promise<ToolOutcome> {
  return EXECUTORS[name](args, tc);
}
