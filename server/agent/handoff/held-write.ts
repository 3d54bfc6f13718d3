import type { HeldWrite as HeldWriteSummary } from '../../../contract/schemas';
import type { HeldWrite } from '../../egress/egress-proxy';
import { summarizeWrite } from '../../egress/write-summary';
import { Redactor } from '../observation';
import type { RunState } from '../run-state';

/** Field names whose values are never shown, whatever they hold (a password typed into a re-auth form …). */
const SECRET_NAME = /pass(word|wd|phrase)?|secret|token|otp|csrf|xsrf|api[-_]?key|auth|session|cookie|pin\b|cvv|card/i;
export const MASK = '•••';

/**
 * What a write held for approval would send, as the person and the caller are shown it: the connection's credentials,
 * anything shaped like a token, and fields named like secrets masked, and the request's parameter values shown by
 * name ({{parameters.text}}), as the trace and the model see them.
 */
export function summarizeHeldWrite(write: HeldWrite, state: Pick<RunState, 'secrets' | 'record'>): HeldWriteSummary {
  const placeholders = Object.entries(state.record.parameters)
    .filter((e): e is [string, string] => typeof e[1] === 'string')
    .map(([name, value]) => ({ value, placeholder: `{{parameters.${name}}}` }));
  const redactor = new Redactor({ secrets: state.secrets, placeholders });
  const mask = (name: string, value: string) => (SECRET_NAME.test(name) ? MASK : redactor.text(value));
  return summarizeWrite(write, mask);
}
