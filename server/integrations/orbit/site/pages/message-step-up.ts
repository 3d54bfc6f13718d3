import { html, type RawHtml } from '../../../../sandbox/kit/html';
import type { Doc, SiteKit } from '../../../../sandbox/kit/site';
import { StepUps } from '../../../../sandbox/kit/step-up';
import { asksToStepUp, SANDBOX_STEP_UP_CODE } from '../../../../sandbox/test-users';
import { C } from '../classes';
import type { Message, Person } from '../model';
import { cls } from '../ui';

/**
 * Orbit's "Confirm it's you" before a first message to someone new, for the test users whose behaviour is `step-up`
 * (like a real network's check against spam from a taken-over account). The message waits, unsent, in a step-up
 * challenge (kit/step-up.ts); the dialog asks for the code "sent to your phone" (SANDBOX_STEP_UP_CODE) and posts it
 * with the challenge to /messaging/<username>/confirm, which sends the very message that waited. A conversation that
 * exists already (a message either way) never asks.
 */
export type PendingMessage = { to: string; text: string };

export const messageStepUps = (kit: SiteKit) => new StepUps<PendingMessage>(kit, 'orbit', 'message-step-up');

/** Whether sending `viewer`'s message to `to` must be confirmed with a code first. */
export function mustConfirm(viewer: string, to: string, messages: Doc<Message>[]): boolean {
  if (!asksToStepUp(viewer)) return false;
  return !messages.some((m) => (m.data.from === viewer && m.data.to === to) || (m.data.from === to && m.data.to === viewer));
}

export const isStepUpCode = (code: unknown) => typeof code === 'string' && code.replace(/\s+/g, '') === SANDBOX_STEP_UP_CODE;

/** What the thread page shows while a message waits for its code. */
export interface CodeAsk {
  challenge: string;
  text: string;
  error?: string;
}

/**
 * The dialog, shown as the page loads (the client then makes it modal: `data-open-on-load`). "Cancel" only closes
 * it: the text stays in the message box, and Send asks again with a new code.
 */
export function codeDialog(csrf: RawHtml, to: Person, ask: CodeAsk): RawHtml {
  const described = ask.error ? 'confirm-code-text confirm-code-error' : 'confirm-code-text';
  return html`<div class="${C.dialog}" id="confirm-code" role="dialog" aria-modal="true" aria-labelledby="confirm-code-title" aria-describedby="${described}" data-open-on-load>
<div class="${C.dialogHead}"><h2 id="confirm-code-title">Confirm it's you</h2><button type="button" class="${C.dialogClose}" aria-label="Dismiss">×</button></div>
<form method="post" action="/messaging/${to.username}/confirm">${csrf}<input type="hidden" name="challenge" value="${ask.challenge}">
<div class="${C.dialogBody}"><p class="${C.confirmText}" id="confirm-code-text">To keep your account safe, Orbit checks before your first message to someone new. We sent a 6-digit code to your phone ending in ••42. Enter it to send your message to ${to.name}.</p>
${ask.error ? html`<p class="${C.fieldError}" id="confirm-code-error" role="alert">${ask.error}</p>` : ''}
<div class="${C.field}"><label for="confirm-code-input">Code</label><input class="${C.pickerInput}" id="confirm-code-input" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="8" required autofocus${ask.error ? html` aria-invalid="true"` : ''}></div></div>
<div class="${C.dialogFoot}"><button type="button" class="${cls('btn', 'btnGhost')}" data-dismiss="dialog">Cancel</button><button type="submit" class="${cls('btn', 'btnPrimary')}">Confirm</button></div>
</form></div>`;
}
