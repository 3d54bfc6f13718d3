import type { HeldWrite, UserAction } from '../../contract/schemas';
import { html, type RawHtml } from '../sandbox/kit/html';
import type { AgentRequestRecord } from '../store';
import { cell, dataTable, when } from './table-kit';

/**
 * "Waiting for the user": what a NEEDS_USER run waits for, on its request's page. The message and the held write come
 * from the provider's pages (untrusted text): like everything else here they go through the escaping html`` template.
 * The hosted link is a live link token (whoever opens it joins the run as its user), so it is shown masked, whole only
 * behind "Show link"; its disclosure keeps its state across the live part's refreshes (hx-preserve, one id per ask).
 */
const REASONS: Record<UserAction['reason'], string> = {
  CODE: 'the provider asks for a code',
  CAPTCHA: 'a human check',
  DEVICE_APPROVAL: 'the provider waits for the user to approve this sign-in on their device',
  APPROVAL: 'a write waits for the user’s approval',
  OTHER: 'a step only the user can do',
};

const dateOf = (iso: string): Date | null => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d;
};

/** "in 7 min", "3 min ago", "1 h 5 min ago", "just now". */
export function relativeTime(d: Date, now: Date): string {
  const seconds = Math.round((d.getTime() - now.getTime()) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 5) return 'just now';
  const minutes = Math.round(abs / 60);
  const span =
    abs < 60 ? `${abs} s` : minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
  return seconds > 0 ? `in ${span}` : `${span} ago`;
}

const moment = (iso: string, now: Date): RawHtml => {
  const d = dateOf(iso);
  return d ? html`${relativeTime(d, now)} · ${when(d)}` : html`—`;
};

/** The link with its token replaced by dots: enough to recognise it, not enough to use it. */
const masked = (ua: UserAction) => (ua.linkToken && ua.url.includes(ua.linkToken) ? ua.url.split(ua.linkToken).join('•••') : '•••');

/**
 * Approve / Deny, for the organization's members (the /orgs/:orgId membership check), a plain form with the session's
 * CSRF token like every dashboard POST. Bound to this write (writeId): a page that gave it up and holds another since
 * gets no decision made on this one.
 */
function decisionForm(action: string, csrfToken: string, write: HeldWrite): RawHtml {
  return html`<form method="post" action="${action}" class="held-write-decision" data-testid="held-write-decision">
    <input type="hidden" name="_csrf" value="${csrfToken}" />
    <input type="hidden" name="writeId" value="${write.id}" />
    <p><small>Decide for the user only if they asked you to: Approve sends this write once, Deny ends the run (DENIED_BY_USER).</small></p>
    <div role="group">
      <button type="submit" name="decision" value="approve">Approve</button>
      <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
    </div>
  </form>`;
}

function heldWrite(write: HeldWrite, decide: { action: string; csrfToken: string } | null): RawHtml {
  return html`<h3>The held write (not sent)</h3>
    <p data-testid="held-write"><code>${write.method}</code> <span class="wrap">${write.url}</span> <small>(${write.bodyBytes} bytes)</small></p>
    ${
      write.fields.length === 0
        ? html`<p><small>No fields to show.</small></p>`
        : dataTable({
            testId: 'held-write-fields',
            labels: ['Field', 'Value'],
            body: write.fields.map((f) => html`<tr>${cell('Field', html`<code>${f.name}</code>`)} ${cell('Value', f.value, 'wrap')}</tr>`),
          })
    }
    ${decide ? decisionForm(decide.action, decide.csrfToken, write) : ''}`;
}

export function userActionPanel(
  r: AgentRequestRecord,
  ua: UserAction | null,
  now: Date,
  decide: { action: string; csrfToken: string } | null = null,
): RawHtml {
  if (r.status !== 'NEEDS_USER') return html``;
  if (!ua) {
    return html`<article class="user-action" data-testid="user-action">
      <header><strong>Waiting for the user</strong></header>
      <p>What the run waits for cannot be read here (it is sealed with a vault key this process does not have).</p>
    </article>`;
  }
  const disclosureId = `user-action-link-${ua.since.replace(/[^A-Za-z0-9]/g, '')}`;
  return html`<article class="user-action" data-testid="user-action">
    <header><strong>Waiting for the user</strong> <span class="status status-NEEDS_USER">${ua.reason}</span></header>
    <p data-testid="user-action-message">${ua.message}</p>
    <table>
      <tbody>
        <tr><th>Reason</th><td><code>${ua.reason}</code>: ${REASONS[ua.reason] ?? ''}</td></tr>
        <tr><th>Waiting since</th><td data-testid="user-action-since">${moment(ua.since, now)}</td></tr>
        <tr>
          <th>Expires</th>
          <td data-testid="user-action-expires">${moment(ua.expiresAt, now)} <small>(then FAILED with USER_ACTION_EXPIRED)</small></td>
        </tr>
      </tbody>
    </table>
    <p>
      <strong>Hosted link</strong> for the user: it brings whoever opens it into this run, so send it to the user only. Opening it
      yourself makes you the user, and leaving that page ends the run (USER_ACTION_EXITED).
    </p>
    <fieldset role="group">
      <input type="text" readonly value="${masked(ua)}" aria-label="Hosted link, masked" data-testid="user-action-link-masked" />
      <button type="button" class="secondary" data-copy="${ua.url}">Copy</button>
    </fieldset>
    <details id="${disclosureId}" hx-preserve>
      <summary>Show link</summary>
      <code class="id-full" data-testid="user-action-url">${ua.url}</code>
    </details>
    ${ua.reason === 'APPROVAL' && ua.write ? heldWrite(ua.write, decide) : ''}
  </article>`;
}
