import { generateSchema } from '@anatine/zod-openapi';
import { z } from 'zod';

import type { JsonSchema } from '../../../contract/response-format';
import type { ToolDefinition } from '../model/chat-client';
import { ToolError } from '../result/errors';
import { askUserTool } from './ask-user.tool';
import { clickTool } from './click.tool';
import { closeTabTool } from './close-tab.tool';
import { extractTool } from './extract.tool';
import { hoverTool } from './hover.tool';
import { navigateTool } from './navigate.tool';
import type { PageTool, RecordedStep, ToolContext, ToolOutcome } from './page-tool';
import { pressTool } from './press.tool';
import { scrollTool } from './scroll.tool';
import { selectTool } from './select.tool';
import { switchTabTool } from './switch-tab.tool';
import { typeTool } from './type.tool';
import { waitTool } from './wait.tool';

export { type RecordedStep, settle, type ToolContext, type ToolOutcome, type ToolReplay } from './page-tool';

/**
 * The agent's tools, in one registry (browser-use): one file per page tool next to this one, listed here; the
 * tool definitions sent to the model and the parsing of its calls are built from this list. `done` and `fail`
 * end the run and are handled by the loop.
 */
export const PAGE_TOOLS = [
  navigateTool,
  clickTool,
  typeTool,
  selectTool,
  pressTool,
  hoverTool,
  scrollTool,
  switchTabTool,
  closeTabTool,
  waitTool,
  extractTool,
  askUserTool,
] as const;

export type PageToolName = (typeof PAGE_TOOLS)[number]['name'];
export type ToolName = PageToolName | keyof typeof FINAL_TOOLS;

const BY_NAME = new Map<string, PageTool>(PAGE_TOOLS.map((t) => [t.name, t]));

/** A page tool's declaration, by name (undefined for a name no tool has, e.g. in a trajectory stored by another version). */
export function pageToolNamed(name: string): PageTool | undefined {
  return BY_NAME.get(name);
}

/** Whether a recorded step may have changed something on the provider's site, as its tool declares (`writes`). */
export function stepWrites(step: RecordedStep & { tool: string }): boolean {
  const writes = pageToolNamed(step.tool)?.writes ?? false;
  return typeof writes === 'function' ? writes(step) : writes;
}

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

function jsonSchemaOf(schema: z.ZodTypeAny): Record<string, unknown> {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.entries(v)
          .filter(([k]) => k !== 'nullable')
          .map(([k, x]) => [k, strip(x)]),
      );
    }
    return v;
  };
  return strip(generateSchema(schema)) as Record<string, unknown>;
}

/** The tool definitions for the model; `done.data` carries the caller's result schema. */
export function toolDefinitions(resultSchema: JsonSchema): ToolDefinition[] {
  const defs: ToolDefinition[] = PAGE_TOOLS.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: jsonSchemaOf(t.params) },
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
  defs.push({
    type: 'function',
    function: { name: 'fail', description: FINAL_TOOLS.fail.description, parameters: jsonSchemaOf(FINAL_TOOLS.fail.params) },
  });
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
  const tool = BY_NAME.get(name);
  if (!tool) throw new ToolError(`there is no tool named "${name}"; the tools are ${[...BY_NAME.keys(), 'done', 'fail'].join(', ')}`);
  const r = tool.params.safeParse(args);
  if (!r.success) throw new ToolError(`invalid arguments for ${name}: ${issues(r.error)}`);
  return { name: name as PageToolName, args: r.data as Record<string, unknown> };
}

/** Runs a page tool; while a tool that acts runs (and a grace after), a blocked request is the run's (block-cause.ts). */
export async function executeTool(name: PageToolName, args: Record<string, unknown>, tc: ToolContext): Promise<ToolOutcome> {
  const tool = BY_NAME.get(name)!;
  if (tool.acts === false) return tool.execute(args, tc);
  tc.integrity.causes.actionStarted();
  try {
    return await tool.execute(args, tc);
  } finally {
    tc.integrity.causes.actionEnded();
  }
}
