/** The playbooks' own errors (a module of their own: the shaping helpers throw them too). */

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
