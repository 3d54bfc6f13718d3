import type { z } from 'zod';

import type { Playbook, PlaybookContext } from './registry';

/**
 * A playbook as its file declares it: `parameters` is its zod schema, and what `run` gets in `ctx.params` is that
 * schema's output, inferred, so no playbook states (or casts) its parameters' type. The input side of the schema is
 * free: withParamAliases (site-helpers.ts) wraps a schema in a preprocess step that takes anything, and fields may
 * coerce ("5" → 5) or default.
 */
export type PlaybookSpec<S extends z.ZodTypeAny> = Omit<Playbook<z.output<S>>, 'parameters' | 'run'> & {
  parameters: S;
  run(ctx: PlaybookContext<z.output<S>>): Promise<unknown>;
};

/** Declares a playbook; `ctx.params` is typed from `parameters`. */
export function definePlaybook<S extends z.ZodTypeAny>(spec: PlaybookSpec<S>): Playbook<z.output<S>> {
  return spec;
}
