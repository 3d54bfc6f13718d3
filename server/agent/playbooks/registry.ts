import type { z } from 'zod';

import type { ProviderDefinition } from '../../providers/catalogue';
import type { RunContext } from '../run/context';
import { ActionIndex, type ActionScore, AMBIGUITY_MARGIN, ROUTING_THRESHOLD } from './action-index';
import { PlaybookNotApplicable, PlaybookStepError, WriteRefused } from './errors';
import { fillParameters, type ParameterIssue } from './fill-parameters';
import { type SentenceSlot, slotWord } from './sentence-values';
import type { FieldAliases } from './shape';
import type { ListRead } from './shape-list';

/**
 * Playbooks: tested, deterministic routines for known actions on one provider (the fastest of the three
 * ways to run an action). A request reaches one in one of three ways: it names it (`playbook`), a ranked
 * text search matches its action against the playbooks' examples and descriptions (action-index.ts), or,
 * when a model is configured, the model router picks one from their descriptions. The parameters, filled
 * from `parameters`, then from values written in the action, then from the starting URL, must satisfy
 * the playbook's zod schema.
 */
export { PlaybookNotApplicable, PlaybookStepError, WriteRefused };
export type { ParameterIssue };

export interface StepOptions<T> {
  writes?: boolean | ((value: T) => boolean);
}

export interface PlaybookContext<P> extends RunContext {
  /** The request's parameters, parsed by the playbook's schema. */
  params: P;
  /**
   * Runs one step of the playbook and records it in the trace (tool, target, URL, duration, outcome, and a
   * screenshot when it fails). A failing step ends the playbook with PLAYBOOK_FAILED naming the step.
   * `writes`: this is the step that makes the change (clicks "Send", "Post" …). Once it succeeded the change
   * took effect, and the request completes with what the playbook can still read, never FAILED (a caller who
   * retries a failure would repeat the change). A function: the step may make the change, and its value says
   * whether it did. A site may ask its user to confirm first (a code, a password): then nothing was written yet,
   * the playbook asks the person (ctx.needsUser) and a later writing step confirms the change.
   * Either way, a failing writing step leaves it unknown whether the change was made, and says so.
   * What the run's door throws (UserDoorError: the person left, nobody to ask) passes through unchanged.
   */
  step<T>(tool: string, target: string, fn: () => Promise<T>, opts?: StepOptions<T>): Promise<T>;
  /**
   * Fits what the playbook read to the caller's responseFormat (by name, alias and meaning: shape.ts).
   * Before a write, a field it cannot fill makes the playbook not applicable; after one, that field is
   * null and the request carries a warning.
   */
  fit(fields: Record<string, unknown>, aliases?: FieldAliases): Record<string, unknown>;
  /** fit for a playbook that reads a list (shape-list.ts). */
  fitList(read: ListRead): Record<string, unknown>;
}

export interface Playbook<P = unknown> {
  /** The provider it runs on (slug from the catalogue: orbit, forgehub, github …). */
  providerSlug: string;
  /** Unique name, e.g. orbit.read-my-profile. */
  name: string;
  /** What it does, in one sentence (shown in the action catalogue, to the model router and in traces). */
  description: string;
  /**
   * Requests as people write them, values included ("Send a message to Priya Nair saying 'Running late'"):
   * the router matches actions against them, and the catalogue shows them. Write the ways people really ask,
   * not keywords; each phrasing the playbook must be found by belongs here (and in its routing test).
   */
  examples: readonly string[];
  /** Whether it changes anything on the provider: a request in read mode never runs a playbook that writes. */
  writes: boolean;
  /**
   * The request's parameters must satisfy this schema for the playbook to apply. Its output is P; its input is
   * whatever a request may hold (aliases, numbers as strings …). Declare a playbook with definePlaybook (P inferred).
   */
  parameters: z.ZodType<P, z.ZodTypeDef, unknown>;
  /**
   * Which parameters a value written in the action may fill when `parameters` does not give them
   * (e.g. `{ text: 'text', recipient: 'person' }`, or several slots in order of preference: `{ title: ['name', 'text'] }`;
   * slots: sentence-values.ts). Explicit parameters always win.
   */
  fromSentence?: Readonly<Record<string, SentenceSlot | readonly SentenceSlot[]>>;
  /**
   * Parameters implied by where the request starts (an action started on a repository's page is about that
   * repository). Used last: explicit parameters and the sentence's values win.
   */
  fromStartingUrl?(url: URL): Record<string, unknown>;
  /**
   * What it can fill in a responseFormat, written in the responseFormat grammar (a caller may copy it as one):
   * `{ recipient: 'string - display name', sentAt: 'datetime', sent: 'boolean - whether it was sent' }`. A list
   * in it stands for any list of the format (its element shows the fields of each item). Shown in the catalogue.
   */
  resultFields: Readonly<Record<string, unknown>>;
  /**
   * Drives the page and returns the result, shaped with ctx.fit / ctx.fitList.
   * Throw PlaybookNotApplicable when the request turns out to be outside what the playbook covers.
   */
  run(ctx: PlaybookContext<P>): Promise<unknown>;
}

export interface PlaybookDescriptor {
  name: string;
  description: string;
}

/**
 * The planner helper's hook: given an action the text search did not route, pick one of the candidates by
 * name (or null). Only called when installed, i.e. when a model is configured.
 */
export type PlaybookModelRouter = (input: {
  action: string;
  provider: ProviderDefinition;
  candidates: PlaybookDescriptor[];
  signal: AbortSignal;
}) => Promise<string | null>;

/** Why no playbook runs, for the request's error.details when nothing else runs either. */
export type RouteProblem =
  /** No playbook's examples explain the action well enough; the closest, with their scores. */
  | { kind: 'no-match'; closest: ActionScore[]; threshold: number }
  /** Two playbooks match about equally well. */
  | { kind: 'ambiguous'; closest: ActionScore[]; threshold: number }
  /** A playbook matched, but the request lacks a parameter it needs or gives one that does not fit. */
  | {
      kind: 'parameters';
      playbook: string;
      code: 'PLAYBOOK_PARAMETERS_MISSING' | 'PLAYBOOK_PARAMETERS_INVALID';
      issues: ParameterIssue[];
      score?: number;
    }
  /** The playbook that matches writes, and the request is read-only. */
  | { kind: 'read-only'; playbook: string }
  /** The request names a playbook this provider does not have. */
  | { kind: 'unknown-playbook'; playbook: string; available: string[] }
  /** No playbook of this provider could run at all (none, or none in read mode), or no model to ask. */
  | { kind: 'none' };

export type PlaybookRoute =
  | { playbook: Playbook<unknown>; params: unknown; via: 'text' | 'model' | 'named'; score?: number }
  | { playbook: null; reason: string; problem: RouteProblem };

/** Rankings kept per provider index (a few hundred bytes each). */
const RANK_CACHE_SIZE = 256;

export class PlaybookRegistry {
  private readonly playbooks = new Map<string, Playbook<unknown>>();
  private readonly indexes = new Map<string, ActionIndex>();
  /** Recent rankings of each index, by action text (rank()); they go with their index. */
  private readonly ranked = new WeakMap<ActionIndex, Map<string, readonly ActionScore[]>>();
  private modelRouter: PlaybookModelRouter | null = null;

  /** Built at the composition root from the integrations' playbooks (server/integrations/). */
  constructor(playbooks: readonly Playbook<unknown>[] = []) {
    for (const p of playbooks) this.register(p);
  }

  register<P>(playbook: Playbook<P>): this {
    if (this.playbooks.has(playbook.name)) throw new Error(`playbook ${playbook.name} is already registered`);
    if (!playbook.examples?.length) throw new Error(`playbook ${playbook.name} has no examples to be found by`);
    this.playbooks.set(playbook.name, playbook as Playbook<unknown>);
    this.indexes.delete(playbook.providerSlug);
    return this;
  }

  unregister(name: string): void {
    const p = this.playbooks.get(name);
    if (p) this.indexes.delete(p.providerSlug);
    this.playbooks.delete(name);
  }

  list(providerSlug?: string): Playbook<unknown>[] {
    return [...this.playbooks.values()].filter((p) => !providerSlug || p.providerSlug === providerSlug);
  }

  get(providerSlug: string, name: string): Playbook<unknown> | undefined {
    const p = this.playbooks.get(name);
    return p && p.providerSlug === providerSlug ? p : undefined;
  }

  /** Installs (or removes, with null) the model's routing hook. */
  setModelRouter(router: PlaybookModelRouter | null): void {
    this.modelRouter = router;
  }

  get hasModelRouter(): boolean {
    return this.modelRouter !== null;
  }

  /**
   * The provider's playbooks ranked for an action by the text search, best first, with their scores. Ranking is a
   * pure function of the provider's index and the action's text, and callers send the same few phrasings again and
   * again (each costs milliseconds of CPU on the worker's hot path): the last RANK_CACHE_SIZE answers per index are
   * kept with it, so registering or setting aside a playbook (which drops the index) drops them too.
   */
  rank(providerSlug: string, action: string): ActionScore[] {
    const index = this.index(providerSlug);
    let cache = this.ranked.get(index);
    if (!cache) this.ranked.set(index, (cache = new Map()));
    let scores = cache.get(action);
    if (scores)
      cache.delete(action); // re-inserted below: the Map's order is the eviction order
    else {
      scores = index.rank(action).map((s) => Object.freeze({ ...s }));
      if (cache.size >= RANK_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    }
    cache.set(action, scores);
    return [...scores];
  }

  private index(providerSlug: string): ActionIndex {
    let index = this.indexes.get(providerSlug);
    if (!index) {
      index = new ActionIndex(
        this.list(providerSlug).map((p) => ({
          name: p.name,
          description: p.description,
          examples: p.examples,
          writes: p.writes,
          slots: Object.values(p.fromSentence ?? {}).flatMap((s) => (Array.isArray(s) ? s : [s]).map(slotWord)),
        })),
      );
      this.indexes.set(providerSlug, index);
    }
    return index;
  }

  /**
   * Two playbooks above the threshold about equally well: the words that differ between them decide (action-index.ts);
   * else, of two that only read, the one whose parameters the request can fill (a repository's issues need the
   * repository; "my issues" do not). A write is never chosen for its parameters alone. Null: it stays a tie.
   */
  private breakTie(
    slug: string,
    tied: ActionScore[],
    input: { action: string; parameters: unknown; startingUrl?: string },
  ): ActionScore | null {
    if (tied.length !== 2) return null;
    const [a, b] = tied as [ActionScore, ActionScore];
    const decided = this.index(slug).decide(input.action, a.name, b.name);
    if (decided) return decided === a.name ? a : b;
    const fillable = tied.filter((t) => {
      const p = this.playbooks.get(t.name)!;
      return !p.writes && fillParameters(p, input).ok;
    });
    const readers = tied.filter((t) => !this.playbooks.get(t.name)!.writes);
    return fillable.length === 1 && readers.length === 2 ? fillable[0]! : null;
  }

  /**
   * Finds the playbook for a request: the one it names, else by the text search (the best example above the
   * threshold), then by the model if installed. Without a playbook, `problem` says why, precisely enough
   * for the request's error.
   */
  async route(input: {
    action: string;
    provider: ProviderDefinition;
    parameters: unknown;
    signal: AbortSignal;
    /** Only one of the two ways (the worker asks the model only after a replay had its chance); default both. */
    by?: 'text' | 'model';
    /** `read`: playbooks that write are not candidates (the model router never sees them either). */
    mode?: 'read' | 'read_write';
    /** Where the request starts (context for parameters, e.g. the repository whose page it is). */
    startingUrl?: string;
    /** The playbook the request names: no routing. */
    playbook?: string | null;
  }): Promise<PlaybookRoute> {
    const slug = input.provider.slug;
    const all = this.list(slug);
    const none = (reason: string, problem: RouteProblem = { kind: 'none' }): PlaybookRoute => ({ playbook: null, reason, problem });

    if (input.playbook) {
      const named = this.get(slug, input.playbook);
      if (!named)
        return none(`${slug} has no playbook ${input.playbook}`, {
          kind: 'unknown-playbook',
          playbook: input.playbook,
          available: all.map((p) => p.name),
        });
      if (named.writes && input.mode === 'read')
        return none(`playbook ${named.name} writes, and this request is read-only`, { kind: 'read-only', playbook: named.name });
      return this.withParameters(named, input, 'named');
    }

    const candidates = input.mode === 'read' ? all.filter((p) => !p.writes) : all;
    if (candidates.length === 0 && all.length > 0) return none(`every ${slug} playbook writes, and this request is read-only`);
    if (candidates.length === 0) return none(`no playbooks for ${slug}`);
    if (input.by === 'model' && !this.modelRouter) return none('no model is configured to route the action to a playbook');

    const ranked = this.rank(slug, input.action);
    const closest = ranked.slice(0, 3);
    if (input.by !== 'model') {
      const allowed = new Set(candidates.map((p) => p.name));
      const above = ranked.filter((r) => r.score >= ROUTING_THRESHOLD);
      let [best] = above;
      const tied = best ? above.filter((r) => best!.score - r.score < AMBIGUITY_MARGIN) : [];
      if (tied.length > 1) {
        const winner = this.breakTie(slug, tied, input);
        if (!winner)
          return none(`the action matches ${tied[0]!.name} and ${tied[1]!.name} about equally well`, {
            kind: 'ambiguous',
            closest,
            threshold: ROUTING_THRESHOLD,
          });
        best = winner;
      }
      if (best && !allowed.has(best.name))
        return none(`the ${slug} playbook that matches the action (${best.name}) writes, and this request is read-only`, {
          kind: 'read-only',
          playbook: best.name,
        });
      if (best) return this.withParameters(this.playbooks.get(best.name)!, input, 'text', best.score);
    }
    if (this.modelRouter && input.by !== 'text') {
      const name = await this.modelRouter({
        action: input.action,
        provider: input.provider,
        candidates: candidates.map((p) => ({ name: p.name, description: p.description })),
        signal: input.signal,
      });
      const picked = name ? candidates.find((p) => p.name === name) : undefined;
      if (picked) return this.withParameters(picked, input, 'model');
    }
    return none(`no ${slug} playbook matches the action`, { kind: 'no-match', closest, threshold: ROUTING_THRESHOLD });
  }

  /**
   * Checks a request that names its playbook without running anything, so the API can refuse it with a
   * precise 400 before the request is queued (and a browser opened). Null: it would route.
   */
  checkNamed(
    provider: ProviderDefinition,
    input: { playbook: string; action: string; parameters: unknown; startingUrl?: string; mode?: 'read' | 'read_write' },
  ): { reason: string; problem: RouteProblem } | null {
    const named = this.get(provider.slug, input.playbook);
    if (!named)
      return {
        reason: `${provider.name} has no action ${input.playbook}`,
        problem: { kind: 'unknown-playbook', playbook: input.playbook, available: this.list(provider.slug).map((p) => p.name) },
      };
    if (named.writes && input.mode === 'read')
      return {
        reason: `playbook ${named.name} writes, and this request is read-only`,
        problem: { kind: 'read-only', playbook: named.name },
      };
    const route = this.withParameters(named, input, 'named');
    return route.playbook ? null : { reason: route.reason, problem: route.problem };
  }

  private withParameters(
    playbook: Playbook<unknown>,
    input: { parameters: unknown; action: string; startingUrl?: string },
    via: 'text' | 'model' | 'named',
    score?: number,
  ): PlaybookRoute {
    const filled = fillParameters(playbook, input);
    if (filled.ok) return { playbook, params: filled.params, via, ...(score === undefined ? {} : { score }) };
    const what = filled.code === 'PLAYBOOK_PARAMETERS_MISSING' ? 'lacks' : 'has parameters that do not fit';
    return {
      playbook: null,
      reason: `playbook ${playbook.name} matches, but the request ${what}: ${filled.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
      problem: {
        kind: 'parameters',
        playbook: playbook.name,
        code: filled.code,
        issues: filled.issues,
        ...(score === undefined ? {} : { score }),
      },
    };
  }
}
