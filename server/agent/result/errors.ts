/**
 * The agent's failures: a small hierarchy with a stable code and a `cause` (Stagehand's shape).
 * Expected outcomes of a run (the model is down, the answer does not fit the schema …) end as a
 * RunOutcome with one of AGENT_FAILURE_CODES; only a timeout or a cancel is thrown out of a strategy.
 */

/** Codes a strategy (planner, replay) writes into a failed request's error.code, with what they mean. */
export const AGENT_FAILURE_CODES = {
  MODEL_NOT_CONFIGURED: 'No playbook or recorded replay covers this action and no model is configured (AGENTLINK_MODEL_BASE_URL, AGENTLINK_MODEL).',
  MODEL_ERROR: 'The model endpoint failed: an HTTP error, a network error, or no answer within AGENTLINK_MODEL_TIMEOUT_MS.',
  MODEL_BAD_RESPONSE: 'The model endpoint answered with something that is not an OpenAI-compatible chat completion.',
  RESULT_SCHEMA_MISMATCH: "The agent's final answer did not match the JSON Schema compiled from responseFormat, also after one repair turn; details lists the errors.",
  MAX_STEPS_EXCEEDED: 'The agent did not finish within its step budget.',
  TOO_MANY_FAILURES: 'Several actions in a row failed (element missing, blocked navigation …); the agent gave up.',
  ACTION_FAILED: 'The agent reported that the action cannot be done on this page (its reason is the message).',
  TIMED_OUT: 'The request ran past its timeout (the worker records the request as TIMED_OUT).',
} as const;

export type AgentFailureCode = keyof typeof AGENT_FAILURE_CODES;

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
  constructor(message: string, readonly status?: number, options: { cause?: unknown } = {}) {
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
  constructor(message: string, readonly blocked = false, options: { cause?: unknown } = {}) {
    super('TOOL_ERROR', message, options);
  }
}

/**
 * The timeout guard (Stagehand): called between awaits. A cancel re-throws the signal's reason; a passed
 * deadline throws AgentTimeoutError.
 */
export function guard(run: { signal: AbortSignal; deadline: number }, now: () => number = Date.now): void {
  if (run.signal.aborted) throw run.signal.reason ?? new AgentTimeoutError('the agent request was aborted');
  if (now() >= run.deadline) throw new AgentTimeoutError();
}

/** Milliseconds left before the deadline, capped at `cap` and at least 1. */
export function remaining(run: { deadline: number }, cap: number, now: () => number = Date.now): number {
  return Math.max(1, Math.min(cap, run.deadline - now()));
}

/** Whether an error must end the run at once (timeout, cancel) instead of being fed back to the model. */
export function isFatal(err: unknown, run: { signal: AbortSignal; deadline: number }): boolean {
  return err instanceof AgentTimeoutError || run.signal.aborted || Date.now() >= run.deadline;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
