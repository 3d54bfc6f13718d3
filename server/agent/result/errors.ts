import { AGENT_RUN_ERRORS, type AgentRunErrorCode } from '../../../contract/error-codes';
import { UserDoorError } from '../handoff/user-ask';
import { runNow } from '../run/clock';
/**
 * The agent's failures: a small hierarchy with a stable code and a `cause` (Stagehand's shape).
 * Expected outcomes of a run (the model is down, the answer does not fit the schema …) end as a
 * RunOutcome with one of AGENT_FAILURE_CODES; only a timeout or a cancel is thrown out of a strategy.
 */

/** Codes a strategy (planner, replay) writes into a failed request's error.code; their meanings live in the contract. */
const STRATEGY_FAILURE_CODES = [
  'MODEL_NOT_CONFIGURED',
  'MODEL_ERROR',
  'MODEL_BAD_RESPONSE',
  'RESULT_SCHEMA_MISMATCH',
  'MAX_STEPS_EXCEEDED',
  'TOO_MANY_FAILURES',
  'ACTION_FAILED',
  'REPLAY_MISMATCH',
  'TIMED_OUT',
] as const satisfies readonly AgentRunErrorCode[];

export type AgentFailureCode = (typeof STRATEGY_FAILURE_CODES)[number];

export const AGENT_FAILURE_CODES = Object.fromEntries(STRATEGY_FAILURE_CODES.map((c) => [c, AGENT_RUN_ERRORS[c]])) as Record<
  AgentFailureCode,
  string
>;

export class AgentError extends Error {
  constructor(
    readonly code: AgentFailureCode | 'TOOL_ERROR',
    message: string,
    options: { cause?: unknown; details?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    if (options.details !== undefined) this.details = options.details;
  }
  details?: unknown;
}

/** The run's deadline passed. Checked between awaits; thrown out of the strategy so the worker marks TIMED_OUT. */
export class AgentTimeoutError extends AgentError {
  constructor(message = 'the agent request ran past its deadline', options: { cause?: unknown } = {}) {
    super('TIMED_OUT', message, options);
  }
}

/** The model endpoint failed (HTTP error, network error, its own timeout). */
export class ModelError extends AgentError {
  constructor(
    message: string,
    readonly status?: number,
    options: { cause?: unknown } = {},
  ) {
    super('MODEL_ERROR', message, options);
  }
}

/** The model endpoint answered, but not with a chat completion we can use. */
export class ModelBadResponseError extends AgentError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('MODEL_BAD_RESPONSE', message, options);
  }
}

/** One action failed (element gone, navigation blocked, bad arguments). Recoverable: fed back to the model. */
export class ToolError extends AgentError {
  constructor(
    message: string,
    readonly blocked = false,
    options: { cause?: unknown } = {},
  ) {
    super('TOOL_ERROR', message, options);
  }
}

/**
 * The timeout guard (Stagehand): called between awaits. A cancel re-throws the signal's reason; a passed
 * deadline throws AgentTimeoutError.
 */
export function guard(run: { signal: AbortSignal; deadline: number }, now: () => number = runNow): void {
  if (run.signal.aborted) throw run.signal.reason ?? new AgentTimeoutError('the agent request was aborted');
  if (now() >= run.deadline) throw new AgentTimeoutError();
}

/** Milliseconds left before the deadline, capped at `cap` and at least 1. */
export function remaining(run: { deadline: number }, cap: number, now: () => number = runNow): number {
  return Math.max(1, Math.min(cap, run.deadline - now()));
}

/** Whether an error must end the run at once (timeout, cancel) instead of being fed back to the model. */
export function isFatal(err: unknown, run: { signal: AbortSignal; deadline: number }): boolean {
  // The person's answer (they left, denied a write, nobody to ask) ends the run as it is: never fed back to the model.
  return err instanceof AgentTimeoutError || err instanceof UserDoorError || run.signal.aborted || runNow() >= run.deadline;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
