import { LINK_MESSAGE_TYPES } from '../../../../../contract/link-messages';
import type { HeldWrite } from '../../../../../contract/schemas';
import type { UserActionView } from '../../../user-action-link';
import { api, run } from '../api';
import { h } from '../dom';
import { liveStage, openLive, stopLive } from '../live-view';
import { nav } from '../nav';
import { emit, metadata, post } from '../sdk';
import { currentView, el, mode, state, type WidgetMetadata } from '../state';
import { actions, badge, button, logo, orgName, say, shortName, show, title } from '../ui';

/**
 * A paused agent run (a link token from the run's userAction). The person sees the run's own page, live (live-view.ts),
 * with what the run waits for in words: a step to do on the page ("Done" when it is done; the run also sees it by
 * itself), or a write held at the network to approve or deny, shown field by field. "I can't do this" leaves: the run
 * then ends (USER_ACTION_EXITED). Answered, the widget ends with agentlink:exit, error null and
 * metadata.userActionOutcome (there is nothing to exchange).
 */

type Reason = NonNullable<UserActionView['reason']>;
type Outcome = NonNullable<WidgetMetadata['userActionOutcome']> | 'ENDED';
type Decision = 'done' | 'approve' | 'deny';

const TASK_COPY: Record<Reason, string> = {
  CODE: 'Enter the code on the page below',
  CAPTCHA: 'Finish the check on the page below',
  DEVICE_APPROVAL: 'Approve this sign-in on your device',
  APPROVAL: 'Approve this change?',
  OTHER: 'Finish this step on the page below',
};

function userActionMeta(outcome?: WidgetMetadata['userActionOutcome']): WidgetMetadata {
  const ua = state.view && state.view.userAction;
  return { agentRequestId: ua ? ua.agentRequestId : null, userActionOutcome: outcome || null };
}

export function renderUserAction(): void {
  stopLive();
  const v = currentView();
  const ua = v.userAction;
  const provider = v.provider;
  const name = shortName(provider);
  if (!ua || ua.state !== 'waiting') return renderUserActionOver();
  if (!provider) throw new Error('A paused run’s view needs its provider.');
  const approval = ua.reason === 'APPROVAL';
  const heading = (ua.reason && TASK_COPY[ua.reason]) || TASK_COPY.OTHER;
  const status = h('p', { class: 'al-live-status', id: 'al-live-status', role: 'status', 'aria-live': 'polite' });
  // A write to approve needs no hand on the page (it is mid-send): the view is a picture, out of the Tab order.
  const live = liveStage({
    label: approval
      ? name + ' page of the task, as it is now.'
      : name + ' page of the task. Click or tap to use it; keys you press go to the page. Press Escape, then Tab, to leave it.',
    keysLabel: 'Type on the ' + name + ' page',
    interactive: !approval,
    roleDescription: 'remote page',
    className: 'al-run-canvas',
  });
  const buttons = approval
    ? actions(
        button('Approve', () => answerUserAction('approve'), false, { id: 'al-approve' }),
        button('Deny', () => answerUserAction('deny'), true, { id: 'al-deny' }),
      )
    : actions(
        button('Done', () => answerUserAction('done'), false, { id: 'al-done' }),
        button('I can’t do this', () => nav.exit(), true, { id: 'al-cant' }),
      );
  // Focus starts on the heading, never on Approve: a stray Enter must not send anything.
  show(
    'task',
    h(
      'div',
      { class: 'al-grow al-live al-task' },
      h('div', { class: 'al-live-head' }, logo(provider), title(heading)),
      h('p', { class: 'al-lead', id: 'al-task-message' }, ua.message || ''),
      h('p', { class: 'al-muted al-task-line' }, (orgName() || 'The app') + ' is doing this for you on ' + name + ': “' + ua.task + '”'),
      approval && ua.write ? writeSummary(ua.write) : null,
      status,
      live.stage,
      buttons,
      h('p', { class: 'al-muted', id: 'al-task-expiry' }, expiryText(ua.expiresAt)),
    ),
  );
  emit('OPEN_USER_ACTION', userActionMeta());
  say(heading);
  openLive({
    ...live,
    status,
    retry: h('button', { hidden: true }),
    // A held write is a picture of the page: the line says what is asked (the buttons below), not to use the page.
    picture: approval,
    copy: {
      connecting: 'Connecting to the task’s page…',
      LIVE: approval
        ? 'This is the task’s page as it is now, for you to look at. Approve or deny the change below.'
        : 'This is the task’s page, live. Use it as you would on ' + name + '.',
      RUN_WORKING: 'The task is running on.',
    },
    // The run told the view what it does now: answered elsewhere, seen done by the run, or ended.
    onRun: (m) => {
      if (m.state === 'waiting' || state.answering) return;
      finishUserAction(m.state === 'ended' ? 'ENDED' : 'DONE');
    },
  });
}

/** The held write, field by field, masked as the trace masks it (the server sends it so). */
function writeSummary(write: HeldWrite): HTMLElement {
  const rows = (write.fields || []).map((f) => h('div', { class: 'al-write-row' }, h('dt', null, f.name), h('dd', null, f.value)));
  return h(
    'section',
    { class: 'al-write', 'aria-label': 'What would be sent' },
    h('p', { class: 'al-write-target' }, h('strong', null, write.method), ' ', write.url),
    rows.length ? h('dl', { class: 'al-write-fields' }, ...rows) : h('p', { class: 'al-muted' }, write.bodyBytes + ' bytes'),
  );
}

function expiryText(iso: string | null): string {
  const t = iso ? Date.parse(iso) : NaN;
  if (!t) return '';
  const minutes = Math.max(1, Math.round((t - Date.now()) / 60000));
  return 'The task waits ' + minutes + ' more minute' + (minutes === 1 ? '' : 's') + ' for you.';
}

function answerUserAction(decision: Decision): void {
  if (state.answering) return;
  state.answering = true;
  emit(decision === 'approve' ? 'APPROVE_WRITE' : decision === 'deny' ? 'DENY_WRITE' : 'USER_ACTION_DONE', userActionMeta());
  run(
    () => api<unknown>('/sessions/' + currentView().linkSessionId + '/user-action', { decision }),
    () => finishUserAction(decision === 'approve' ? 'APPROVED' : decision === 'deny' ? 'DENIED' : 'DONE'),
  );
}

/** The person's part is over: tell the app (exit, no error), show it, and close a popup. */
function finishUserAction(outcome: Outcome): void {
  if (state.finished) return;
  state.finished = true;
  state.lastError = null;
  stopLive();
  if (outcome === 'DONE' && !state.answering) emit('USER_ACTION_DONE', userActionMeta('DONE'));
  // The run ended without this person's answer (canceled, timed out, expired): the app hears why, as an error.
  const ua = currentView().userAction;
  const expired = ua && ua.expiresAt && Date.parse(ua.expiresAt) <= Date.now();
  const error =
    outcome !== 'ENDED'
      ? null
      : expired
        ? { code: 'USER_ACTION_EXPIRED' as const, message: 'The task stopped waiting for you.' }
        : { code: 'USER_ACTION_ENDED' as const, message: 'The task ended before your step was done.' };
  post({ type: LINK_MESSAGE_TYPES.exit, error, metadata: metadata(userActionMeta(outcome === 'ENDED' ? null : outcome)) });
  const org = orgName() || 'The app';
  const heading =
    outcome === 'DENIED' ? 'Denied. Nothing was sent.' : outcome === 'ENDED' ? 'The task has finished' : 'Thanks! ' + org + ' carries on.';
  show(
    'done',
    h(
      'div',
      { class: 'al-grow al-center' },
      badge('ok', 'check'),
      title(heading),
      h('p', { class: 'al-muted' }, mode === 'direct' || !state.origin ? 'You can close this window.' : 'All done.'),
    ),
  );
  say(heading);
  el.close.hidden = true;
  if (mode === 'popup' && state.origin) window.setTimeout(() => window.close(), 1200);
}

/** The ask this link was made for is over (answered, expired, or the run went on) before the person came. */
function renderUserActionOver(): void {
  state.finished = true;
  post({
    type: LINK_MESSAGE_TYPES.exit,
    error: { code: 'USER_ACTION_ENDED', message: 'The task is no longer waiting for you.' },
    metadata: metadata(userActionMeta()),
  });
  show(
    'error',
    h(
      'div',
      { class: 'al-grow al-center' },
      title('This step is over'),
      h('p', { class: 'al-lead' }, 'The task is no longer waiting for you. You can close this window.'),
    ),
  );
  el.close.hidden = true;
}
