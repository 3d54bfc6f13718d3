import type { z } from 'zod';

import { type SentenceSlot, sentenceValues } from './sentence-values';

/**
 * A playbook's parameters, from three places in order of precedence: the request's `parameters` (under the
 * playbook's names or their aliases), values written in the action (fromSentence), and what the starting URL
 * implies (fromStartingUrl). The result is parsed by the playbook's schema; a failure names the parameter
 * the caller fixes and where a bad value came from, so the error is precise before any browser opens.
 */
export interface ParameterIssue {
  /** `parameters.text`: the field to give (or fix). */
  path: string;
  message: string;
  /** Where a value that does not fit came from, when it was not `parameters`. */
  source?: 'action' | 'startingUrl';
  /** The value read from the action or the URL (never one the caller passed: that one they know). */
  value?: unknown;
}

export type FilledParameters =
  | { ok: true; params: unknown; filled: Record<string, { from: 'action' | 'startingUrl'; value: unknown }> }
  | { ok: false; code: 'PLAYBOOK_PARAMETERS_MISSING' | 'PLAYBOOK_PARAMETERS_INVALID'; issues: ParameterIssue[] };

export interface ParameterSources {
  parameters: z.ZodTypeAny;
  fromSentence?: Readonly<Record<string, SentenceSlot | readonly SentenceSlot[]>>;
  fromStartingUrl?(url: URL): Record<string, unknown>;
}

/** Aliases a schema built with withParamAliases accepts for each parameter (site-helpers.ts). */
export const PARAM_ALIASES = Symbol('paramAliases');
type WithAliases = { [PARAM_ALIASES]?: Record<string, string[]> };

/** The explicit parameters with every alias moved to its canonical name (the first alias present wins). */
function canonical(schema: z.ZodTypeAny, raw: Record<string, unknown>): Record<string, unknown> {
  const aliases = (schema as WithAliases)[PARAM_ALIASES] ?? {};
  const out = { ...raw };
  for (const [name, names] of Object.entries(aliases)) {
    for (const alias of names) {
      if (!(alias in out)) continue;
      if (out[name] === undefined) out[name] = out[alias];
      delete out[alias];
    }
  }
  return out;
}

export function fillParameters(
  playbook: ParameterSources,
  input: { parameters: unknown; action: string; startingUrl?: string },
): FilledParameters {
  const given = input.parameters && typeof input.parameters === 'object' && !Array.isArray(input.parameters) ? input.parameters : {};
  const params = canonical(playbook.parameters, given as Record<string, unknown>);
  const filled: Record<string, { from: 'action' | 'startingUrl'; value: unknown }> = {};

  const sentence = playbook.fromSentence ? sentenceValues(input.action) : {};
  for (const [name, slots] of Object.entries(playbook.fromSentence ?? {})) {
    if (params[name] !== undefined) continue;
    const order: readonly SentenceSlot[] = typeof slots === 'string' ? [slots] : slots;
    const slot = order.find((s) => sentence[s] !== undefined);
    if (slot) filled[name] = { from: 'action', value: sentence[slot] };
  }
  if (playbook.fromStartingUrl && input.startingUrl) {
    let implied: Record<string, unknown> = {};
    try {
      implied = playbook.fromStartingUrl(new URL(input.startingUrl));
    } catch {
      // An unparsable URL implies nothing (the API checked it already).
    }
    for (const [name, value] of Object.entries(implied)) {
      if (params[name] === undefined && !filled[name] && value !== undefined) filled[name] = { from: 'startingUrl', value };
    }
  }
  for (const [name, f] of Object.entries(filled)) params[name] = f.value;

  const parsed = playbook.parameters.safeParse(params);
  if (parsed.success) return { ok: true, params: parsed.data, filled };
  const issues = parsed.error.issues.map((i): ParameterIssue => {
    const name = String(i.path[0] ?? '');
    const from = filled[name];
    return {
      path: ['parameters', ...i.path].join('.'),
      message: from
        ? `${i.message} (read from the ${from.from === 'action' ? 'action' : 'starting URL'}: ${JSON.stringify(from.value)})`
        : i.message,
      ...(from ? { source: from.from, value: from.value } : {}),
    };
  });
  const missing = parsed.error.issues.every((i) => i.code === 'invalid_type' && i.received === 'undefined');
  return { ok: false, code: missing ? 'PLAYBOOK_PARAMETERS_MISSING' : 'PLAYBOOK_PARAMETERS_INVALID', issues };
}
