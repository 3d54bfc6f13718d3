import { createHash } from 'node:crypto';

import type { Response } from 'express';

import type { SiteKit } from './site';

/**
 * Step-up confirmation: a site asks its signed-in user to prove it is them again before a sensitive write ("Confirm
 * it's you" with a code, "Confirm access" with the password), as real sites do for a first message to a stranger or
 * a repository's deletion. The write waits in a short-lived challenge (SignInRecords: only a hash of its id is
 * stored), bound to the user and the session that asked; the browser gets only the id, in the confirming form.
 * The write goes through only when that form is posted with the right answer, so neither a page script nor a
 * forged post can skip the step: without the answer there is nothing to post, and another session's id is refused.
 * Each answer uses the challenge up; a wrong one gets it back under a new id until MAX_ATTEMPTS, then it is gone.
 */
const TTL_SECONDS = 10 * 60;
export const MAX_STEP_UP_ATTEMPTS = 5;

export interface StepUp<T> {
  data: T;
  /** Wrong answers so far. */
  attempts: number;
  expiresAt: number;
}

const sha = (v: string) => createHash('sha256').update(v).digest('hex');

export class StepUps<T extends Record<string, unknown>> {
  constructor(
    private readonly kit: SiteKit,
    private readonly site: string,
    /** What is confirmed (one kind per write: a challenge for one never confirms another). */
    private readonly kind: string,
  ) {}

  /** Opens a challenge for the write `data` describes; the answer to it confirms exactly that write. */
  open(res: Response, data: T): Promise<string> {
    return this.put(res, { data, attempts: 0, expiresAt: this.kit.now().getTime() + TTL_SECONDS * 1000 });
  }

  /** The challenge `id` names, if it is this session's and still valid. Used up: an answer is judged once. */
  async take(res: Response, id: unknown): Promise<StepUp<T> | null> {
    if (typeof id !== 'string' || id.length === 0) return null;
    const record = await this.kit.records.take(this.site, this.kind, id);
    if (!record || record.session !== this.sessionOf(res) || record.username !== this.kit.user(res).username) return null;
    return { data: record.data as T, attempts: Number(record.attempts), expiresAt: Number(record.expiresAt) };
  }

  /** After a wrong answer: the same challenge under a new id, or null once its attempts are used up (start again). */
  async again(res: Response, challenge: StepUp<T>): Promise<string | null> {
    const attempts = challenge.attempts + 1;
    if (attempts >= MAX_STEP_UP_ATTEMPTS || challenge.expiresAt <= this.kit.now().getTime()) return null;
    return this.put(res, { ...challenge, attempts });
  }

  private put(res: Response, c: StepUp<T>): Promise<string> {
    const ttl = Math.max(1, Math.ceil((c.expiresAt - this.kit.now().getTime()) / 1000));
    return this.kit.records.put(
      this.site,
      this.kind,
      { data: c.data, attempts: c.attempts, username: this.kit.user(res).username, session: this.sessionOf(res) },
      ttl,
    );
  }

  /** The session, by its CSRF token (one per session, never sent to another): a challenge never crosses sessions. */
  private sessionOf(res: Response): string {
    return sha(`step-up:${this.kit.csrfToken(res)}`);
  }
}
