import type { z } from 'zod';

import type { ProviderDefinition } from '../../providers/catalogue';
import type { RunContext } from '../run-context';

/**
 * Playbooks: tested, deterministic routines for known actions on one provider (the fastest of the three
 * ways to run an action). A playbook is found by a transparent text match of the action against its
 * patterns; when none matches and a model router is installed (the planner's hook), the model may pick one
 * from the provider's playbook descriptions. The parameters must then satisfy the playbook's zod schema.
 */
export interface PlaybookContext<P> extends RunContext {
  /** The request's parameters, parsed by the playbook's schema. */
  params: P;
  /**
   * Runs one step of the playbook and records it in the trace (tool, target, URL, duration, outcome, and a
   * screenshot when it fails). A failing step ends the playbook with PLAYBOOK_FAILED naming the step.
   */
  step<T>(tool: string, target: string, fn: () => Promise<T>): Promise<T>;
}

export interface Playbook<P = unknown> {
  /** The provider it runs on (slug from the catalogue: orbit, forgehub, github …). */
  providerSlug: string;
  /** Unique name, e.g. orbit.read-my-profile. */
  name: string;
  /** What it does, in one sentence (shown to the model router and in traces). */
  description: string;
  /** Whether it changes anything on the provider: a request in read mode never runs a playbook that writes. */
  writes: boolean;
  /** The action matches when any pattern matches its normalised text (lower case, single spaces). */
  match: RegExp[];
  /** The request's parameters must satisfy this schema for the playbook to apply. */
  parameters: z.ZodType<P>;
  /**
   * Drives the page and returns the result, shaped like the request's responseFormat (see shapeToFormat).
   * Throw PlaybookNotApplicable when the request turns out to be outside what the playbook covers.
   */
  run(ctx: PlaybookContext<P>): Promise<unknown>;
}

/** Thrown by a playbook (or shapeToFormat) when it cannot serve this request: the next way is tried. */
export class PlaybookNotApplicable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlaybookNotApplicable';
  }
}

/** Thrown by ctx.step when a step fails; carries the step so the error names where it broke. */
export class PlaybookStepError extends Error {
  constructor(
    readonly tool: string,
    readonly target: string,
    cause: unknown,
  ) {
    super(`${tool} ${target}: ${cause instanceof Error ? cause.message.split('\n')[0] : String(cause)}`, { cause });
    this.name = 'PlaybookStepError';
  }
}

export interface PlaybookDescriptor {
  name: string;
  description: string;
}

/**
 * The planner helper's hook: given an action that no pattern matched, pick one of the candidates by name
 * (or null). Only called when installed, i.e. when a model is configured.
 */
export type PlaybookModelRouter = (input: {
  action: string;
  provider: ProviderDefinition;
  candidates: PlaybookDescriptor[];
  signal: AbortSignal;
}) => Promise<string | null>;

export type PlaybookRoute = { playbook: Playbook<unknown>; params: unknown; via: 'text' | 'model' } | { playbook: null; reason: string };

export function normaliseAction(action: string): string {
  return action
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
}

export class PlaybookRegistry {
  private readonly playbooks = new Map<string, Playbook<unknown>>();
  private modelRouter: PlaybookModelRouter | null = null;

  /** Built at the composition root from the integrations' playbooks (server/integrations/). */
  constructor(playbooks: readonly Playbook<unknown>[] = []) {
    for (const p of playbooks) this.register(p);
  }

  register<P>(playbook: Playbook<P>): this {
    if (this.playbooks.has(playbook.name)) throw new Error(`playbook ${playbook.name} is already registered`);
    this.playbooks.set(playbook.name, playbook as Playbook<unknown>);
    return this;
  }

  unregister(name: string): void {
    this.playbooks.delete(name);
  }

  list(providerSlug?: string): Playbook<unknown>[] {
    return [...this.playbooks.values()].filter((p) => !providerSlug || p.providerSlug === providerSlug);
  }

  /** Installs (or removes, with null) the model's routing hook. */
  setModelRouter(router: PlaybookModelRouter | null): void {
    this.modelRouter = router;
  }

  /** Finds the playbook for an action: by text first (the longest match wins), then by the model if installed. */
  async route(input: {
    action: string;
    provider: ProviderDefinition;
    parameters: unknown;
    signal: AbortSignal;
    /** Only one of the two ways (the worker asks the model only after a replay had its chance); default both. */
    by?: 'text' | 'model';
    /** `read`: playbooks that write are not candidates (the model router never sees them either). */
    mode?: 'read' | 'read_write';
  }): Promise<PlaybookRoute> {
    const all = this.list(input.provider.slug);
    const candidates = input.mode === 'read' ? all.filter((p) => !p.writes) : all;
    if (candidates.length === 0 && all.length > 0)
      return { playbook: null, reason: `every ${input.provider.slug} playbook writes, and this request is read-only` };
    if (candidates.length === 0) return { playbook: null, reason: `no playbooks for ${input.provider.slug}` };
    if (input.by === 'model' && !this.modelRouter)
      return { playbook: null, reason: 'no model is configured to route the action to a playbook' };
    const text = normaliseAction(input.action);
    let best: { playbook: Playbook<unknown>; length: number } | null = null;
    for (const playbook of input.by === 'model' ? [] : candidates) {
      for (const pattern of playbook.match) {
        const m = pattern.exec(text);
        if (m && (!best || m[0].length > best.length)) best = { playbook, length: m[0].length };
      }
    }
    let chosen: { playbook: Playbook<unknown>; via: 'text' | 'model' } | null = best ? { playbook: best.playbook, via: 'text' } : null;
    if (!chosen && this.modelRouter && input.by !== 'text') {
      const name = await this.modelRouter({
        action: input.action,
        provider: input.provider,
        candidates: candidates.map((p) => ({ name: p.name, description: p.description })),
        signal: input.signal,
      });
      const picked = name ? candidates.find((p) => p.name === name) : undefined;
      if (picked) chosen = { playbook: picked, via: 'model' };
    }
    if (!chosen && input.mode === 'read' && all.some((p) => p.writes && p.match.some((m) => m.test(text)))) {
      return {
        playbook: null,
        reason: `the ${input.provider.slug} playbook that matches the action writes, and this request is read-only`,
      };
    }
    if (!chosen) return { playbook: null, reason: `no ${input.provider.slug} playbook matches the action` };
    const parsed = chosen.playbook.parameters.safeParse(input.parameters ?? {});
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'parameters'}: ${i.message}`).join('; ');
      return { playbook: null, reason: `playbook ${chosen.playbook.name} matches, but its parameters do not fit (${issues})` };
    }
    return { playbook: chosen.playbook, params: parsed.data, via: chosen.via };
  }
}
