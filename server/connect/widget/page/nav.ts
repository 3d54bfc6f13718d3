import type { LinkStepResult } from '../../link-session.service';
import type { WidgetError } from './state';

export interface CredentialsOptions {
  /** false: an empty username field (another account); the last one typed otherwise. */
  keepUsername?: boolean;
}

export interface MfaOptions {
  /** The code was refused: say why, and put the focus on the field. */
  error?: string;
}

/**
 * Where a screen can send the person next. Screens go to one another through here rather than by importing each other
 * (the flow loops: a screen's step ends on the screen for where the flow now stands, an error offers to retry), so the
 * modules import one way only; main.ts fills it in (flow.ts) before anything runs.
 */
export interface Navigation {
  /** Shows the screen for where the flow stands. */
  next(): void;
  /** Opens a link session (again). */
  start(): void;
  /** A sign-in step's answer: the next screen, or the success. */
  step(result: LinkStepResult): void;
  /** The person leaves (the close button, "Return to …", "I can’t do this"). */
  exit(): void;
  consent(): void;
  picker(): void;
  credentials(opts?: CredentialsOptions): void;
  mfa(opts?: MfaOptions): void;
  /** A failure: record it, tell the SDK, and show what the person can do next. */
  failure(err: Partial<WidgetError> | null | undefined, retry?: (() => void) | null): void;
}

export const nav = {} as Navigation;

export function setNavigation(screens: Navigation): void {
  Object.assign(nav, screens);
}
