import { createHash } from 'node:crypto';

import { COMPLETION_REDIRECT_PARAMS, COMPLETION_REDIRECT_STATUSES } from '../../contract/redirect-uri-schemas';
import type { LinkSessionFinished } from '../../contract/webhook-schemas';
import type { LinkSessionRecord } from '../store';

/**
 * How a link session ended, told two ways: the LINK.SESSION_FINISHED webhook (every session, however the widget was
 * opened) and, for a hosted link, the query of the completion redirect. Both are built here from the one ended
 * session record, so they cannot disagree.
 */
export interface LinkSessionOutcome {
  session: LinkSessionRecord;
  /** SUCCESS only: the public token issued by the finish (it exists in clear only in that moment; stored as a hash). */
  publicToken: string | null;
}

/** Ended states of a link session; FAILED (the flow could not go on) is an exit with its error, as Plaid reports it. */
const ENDED = new Set(['SUCCEEDED', 'FAILED', 'EXITED']);

export const isEnded = (session: LinkSessionRecord) => ENDED.has(session.status);

/** The webhook's message for an exit the person chose (no message was recorded with its code). */
function exitMessage(code: string): string {
  return code === 'USER_CLOSED' ? 'The user closed the connect flow.' : `The connect flow ended with ${code}.`;
}

/** The object of LINK.SESSION_FINISHED (whitelisted field by field, like every presenter). */
export function presentLinkSessionFinished({ session, publicToken }: LinkSessionOutcome): LinkSessionFinished {
  const success = session.status === 'SUCCEEDED';
  const code = session.errorCode ?? 'USER_CLOSED';
  return {
    linkSessionId: session.id,
    status: success ? 'SUCCESS' : 'EXITED',
    publicToken: success ? publicToken : null,
    clientUserId: session.clientUserId,
    providerId: session.providerId,
    connectionId: session.connectionId,
    mode: session.mode,
    error: success ? null : { code, message: session.errorMessage ?? exitMessage(code) },
    createdAt: session.createdAt.toISOString(),
    finishedAt: (session.completedAt ?? session.updatedAt).toISOString(),
  };
}

/**
 * The completion redirect: the registered URI with the outcome added to its query. Its own parameters are kept (the
 * registry refuses URIs that already use ours, so nothing is overwritten). A success without its public token (an
 * exit call after the flow succeeded: the token is no longer known) has nothing to hand over: null.
 */
export function completionRedirectUrl(registered: string, { session, publicToken }: LinkSessionOutcome): string | null {
  const url = new URL(registered);
  const q = url.searchParams;
  if (session.status === 'SUCCEEDED') {
    if (!publicToken) return null;
    q.set(COMPLETION_REDIRECT_PARAMS.publicToken, publicToken);
    q.set(COMPLETION_REDIRECT_PARAMS.linkSessionId, session.id);
    q.set(COMPLETION_REDIRECT_PARAMS.status, COMPLETION_REDIRECT_STATUSES.success);
  } else {
    q.set(COMPLETION_REDIRECT_PARAMS.linkSessionId, session.id);
    q.set(COMPLETION_REDIRECT_PARAMS.status, COMPLETION_REDIRECT_STATUSES.exited);
    q.set(COMPLETION_REDIRECT_PARAMS.errorCode, session.errorCode ?? 'USER_CLOSED');
  }
  return url.toString();
}

/**
 * The id of a session's LINK.SESSION_FINISHED event, derived from the session: whichever process ends the session
 * (a relayed call, a second exit, a retry) names the same event, and the event table lets it in once.
 */
export function sessionFinishedEventId(linkSessionId: string): string {
  return `evt_${createHash('sha256').update(`LINK.SESSION_FINISHED:${linkSessionId}`, 'utf8').digest('hex').slice(0, 24)}`;
}
