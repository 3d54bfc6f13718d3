import type { Page } from 'playwright-core';

import type { UserAction } from '../../../contract/schemas';
import { RunFailure } from '../run/errors';

/** Why a run waits for its end user (the contract's userAction.reason). */
export type UserActionReason = UserAction['reason'];

/**
 * What a strategy, the login engine or the network asks of the person: the run pauses NEEDS_USER with `reason` and
 * `message` (shown to the person in the widget, beside the run's own page), and resumes on the same page when `done`
 * says the page is past the step (it is asked about twice a second; a throw counts as "not yet"), or when the person
 * presses "Done". `needsUser` throws UserActionEnded when the person exits or the wait expires, UserActionUnavailable
 * when nobody can be asked, and RunAborted on cancel. Strategies let the first two through unchanged (UserDoorError):
 * the run ends with their code, never as a failure of the strategy.
 */
export interface UserAsk {
  reason: UserActionReason;
  /** One or two sentences to the end user: what to do on the page ("Enter the code Orbit sent you"). */
  message: string;
  done?: () => Promise<boolean>;
  /** The page the person works on, when it is not the run's current tab (a sign-in page of a re-login inside the run). */
  page?: Page;
}

/** The run's door to its person: given to strategies on the RunContext. */
export interface UserDoor {
  /** Pauses the run (NEEDS_USER) until the person got it past the step; see UserAsk. */
  needsUser(ask: UserAsk): Promise<void>;
  /**
   * Resolves at once, unless the run is paused at the network (a write held for approval): then when the person has
   * decided. Strategies call it between steps, so nothing acts on the page while the person looks at it.
   */
  whileWaiting(): Promise<void>;
}

/**
 * A run with nobody to ask (tests that drive a strategy alone, tools outside a run): a step only the person can do
 * fails the run with USER_ACTION_UNAVAILABLE; nothing is ever paused.
 */
export const NO_PERSON: UserDoor = {
  needsUser: async (ask) => {
    throw new UserActionUnavailable(`The run needs its user (${ask.reason}: ${ask.message}) and none can be asked here.`);
  },
  whileWaiting: async () => undefined,
};

/**
 * What the door throws when the person cannot or did not get the run past the step. It is a RunFailure, so the worker
 * ends the run with its code; a strategy must not wrap it (into PLAYBOOK_FAILED, a planner retry …): the person's
 * answer is the run's outcome.
 */
export abstract class UserDoorError extends RunFailure {}

/** Thrown when a run cannot pause for its user; the worker ends the run with USER_ACTION_UNAVAILABLE. */
export class UserActionUnavailable extends UserDoorError {
  constructor(message: string) {
    super('USER_ACTION_UNAVAILABLE', message);
    this.name = 'UserActionUnavailable';
  }
}

/**
 * The wait ended without the step done: the person left it (USER_ACTION_EXITED), it expired (USER_ACTION_EXPIRED), the
 * page went away (USER_ACTION_LOST), or they denied a held write (DENIED_BY_USER, details.write: what was not sent).
 * Thrown out of needsUser, or the run's abort reason (a held write has no strategy code waiting on it).
 */
export class UserActionEnded extends UserDoorError {
  constructor(
    code: 'USER_ACTION_EXITED' | 'USER_ACTION_EXPIRED' | 'USER_ACTION_LOST' | 'DENIED_BY_USER',
    message: string,
    details?: unknown,
  ) {
    super(code, message, details);
    this.name = 'UserActionEnded';
  }
}
