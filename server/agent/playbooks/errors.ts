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
    /** Set when a writing step failed in a way that leaves it unknown whether the change was made. */
    readonly write?: 'unconfirmed',
  ) {
    super(`${tool} ${target}: ${cause instanceof Error ? cause.message.split('\n')[0] : String(cause)}`, { cause });
    this.name = 'PlaybookStepError';
  }
}

/**
 * Thrown inside a writing step when the site refused the change (a validation alert, "name already taken"):
 * nothing was written, so the request may fail plainly. Any other failure of a writing step leaves it
 * unknown whether the change happened, and the error says so.
 */
export class WriteRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WriteRefused';
  }
}
