import { randomBytes } from 'node:crypto';

import type { BrowserContext } from 'playwright-core';

import type { HeldWrite as HeldWriteSummary } from '../../../contract/schemas';
import type { HeldWrite } from '../../egress/egress-proxy';
import { summarizeWrite } from '../../egress/write-summary';
import { Redactor } from '../observation';
import type { RunState } from '../run/state';

/** Field names whose values are never shown, whatever they hold (a password typed into a re-auth form …). */
const SECRET_NAME = /pass(word|wd|phrase)?|secret|token|otp|csrf|xsrf|api[-_]?key|auth|session|cookie|pin\b|cvv|card/i;
export const MASK = '•••';

/** The run's cookie values, read from the browser (not the page: a held navigation leaves the page unable to answer). */
export async function cookieValuesOf(context: BrowserContext | undefined): Promise<string[]> {
  if (!context) return [];
  const cookies = await Promise.race([
    context.cookies().catch(() => []),
    new Promise<[]>((resolve) => setTimeout(() => resolve([]), COOKIE_READ_MS).unref()),
  ]);
  return cookies.map((c) => c.value).filter((v) => v.length > 0);
}

const COOKIE_READ_MS = 2_000;

/**
 * What a write held for approval would send, as the person and the caller are shown it: the connection's credentials,
 * anything shaped like a token, and fields named like secrets masked, and the request's parameter values shown by
 * name ({{parameters.text}}), as the trace and the model see them.
 */
export function summarizeHeldWrite(
  write: HeldWrite,
  state: Pick<RunState, 'secrets' | 'record'>,
  cookieValues: readonly string[] = [],
): HeldWriteSummary {
  const placeholders = Object.entries(state.record.parameters)
    .filter((e): e is [string, string] => typeof e[1] === 'string')
    .map(([name, value]) => ({ value, placeholder: `{{parameters.${name}}}` }));
  // The run's cookie values too, as the observation masks them: a session id copied into a body field stays hidden.
  const redactor = new Redactor({ secrets: [...state.secrets, ...cookieValues], placeholders });
  const mask = (name: string, value: string) => (SECRET_NAME.test(name) ? MASK : redactor.text(value));
  // A fresh id per held write (not a digest of it: a digest of the raw body would let its masked values be guessed).
  return { id: `hw_${randomBytes(12).toString('base64url')}`, ...summarizeWrite(write, mask) };
}
