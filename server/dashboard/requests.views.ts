import { AGENT_REQUEST_STATUSES, type UserAction } from '../../contract/schemas';
import type { Environment } from '../config';
import { html, raw, type RawHtml } from '../sandbox/kit/html';
import type { AgentRequestRecord, OrganizationRecord } from '../store';
import { cell, dataTable, idRef, when } from './table-kit';
import { userActionPanel } from './user-action.views';
import { BASE, envSwitch, layout, notice, type PageContext } from './views';

/**
 * The agent request pages: the filtered list, and a request's detail page whose live part polls itself while the
 * request is not over (PENDING, RUNNING, and NEEDS_USER: then it shows what the run waits for, user-action.views.ts).
 */
const fmt = when;

export interface RequestFilters {
  env: Environment;
  status?: string;
  provider?: string;
  from?: string;
  to?: string;
}

export const STATUSES = AGENT_REQUEST_STATUSES;

export function requestsPage(
  ctx: PageContext,
  org: OrganizationRecord,
  nav: RawHtml,
  filters: RequestFilters,
  providers: { providerId: string; name: string }[],
  rows: AgentRequestRecord[],
  providerName: (id: string) => string,
  nextCursor: string | null,
  error?: string,
): string {
  const base = `${BASE}/orgs/${org.id}/requests`;
  const keep: Record<string, string> = {};
  for (const k of ['status', 'provider', 'from', 'to'] as const) if (filters[k]) keep[k] = filters[k]!;
  return layout(
    ctx,
    'Agent requests',
    html`<h1>Agent requests</h1>
      ${envSwitch(base, filters.env)} ${notice(error)}
      <form method="get" action="${base}" class="filters">
        <input type="hidden" name="env" value="${filters.env}" />
        <div class="grid">
          <label
            >Status
            <select name="status">
              <option value="">Any</option>
              ${STATUSES.map((s) => html`<option value="${s}" ${filters.status === s ? raw('selected') : ''}>${s}</option>`)}
            </select></label
          >
          <label
            >Provider
            <select name="provider">
              <option value="">Any</option>
              ${providers.map((p) => html`<option value="${p.providerId}" ${filters.provider === p.providerId ? raw('selected') : ''}>${p.name}</option>`)}
            </select></label
          >
          <label>From <input type="date" name="from" value="${filters.from ?? ''}" /></label>
          <label>To <input type="date" name="to" value="${filters.to ?? ''}" /></label>
        </div>
        <button type="submit" class="secondary">Filter</button>
      </form>
      ${
        rows.length === 0
          ? html`<p data-testid="empty-state">
              No agent requests match. Clear the filters, or send one with POST /api/agent-requests (an access token, an action and a
              responseFormat).
            </p>`
          : dataTable({
              testId: 'agent-requests',
              labels: ['Request', 'Status', 'Provider', 'Action', 'Created', 'Time'],
              body: rows.map(
                (r) => html`<tr data-request-id="${r.id}">
                  ${cell('Request', idRef(r.id, `${base}/${r.id}`))}
                  ${cell('Status', html`<span class="status status-${r.status}">${r.status}</span>`)}
                  ${cell('Provider', providerName(r.providerId))} ${cell('Action', r.action, 'clip')} ${cell('Created', fmt(r.createdAt))}
                  ${cell('Time', r.executionTimeMs === null ? '—' : `${r.executionTimeMs} ms`, 'num')}
                </tr>`,
              ),
            })
      }
      ${nextCursor ? html`<p><a href="${base}?${new URLSearchParams({ ...keep, env: filters.env, cursor: nextCursor }).toString()}">Older requests →</a></p>` : ''}`,
    { nav },
  );
}

const json = (v: unknown) => html`<pre><code>${JSON.stringify(v ?? null, null, 2)}</code></pre>`;
const SCREENSHOT = /^[A-Za-z0-9+/]+={0,2}$/;

/** Not over yet: the page keeps polling (a NEEDS_USER run goes on, or ends, once its user has acted or the wait ran out). */
export const isLive = (r: AgentRequestRecord) => r.status === 'PENDING' || r.status === 'RUNNING' || r.status === 'NEEDS_USER';

/** What the live part shows besides the record: the opened user action of a NEEDS_USER request, and the time now. */
export interface LiveExtras {
  userAction: UserAction | null;
  now: Date;
  /** The session's CSRF token, for the held write's Approve / Deny form. */
  csrfToken: string;
  /** What the last Approve / Deny on this page did (shown once, after its redirect). */
  decided?: 'approved' | 'denied' | 'over';
}

const DECIDED: Record<NonNullable<LiveExtras['decided']>, [string, 'ok' | 'warn']> = {
  approved: ['Approved: the write is sent once and the run goes on.', 'ok'],
  denied: ['Denied: the write was not sent and the run ends (DENIED_BY_USER).', 'ok'],
  over: ['Nothing was decided: no write waits for a decision now (decided, expired, or the page gave it up).', 'warn'],
};

/** The part of the detail page that changes while a request runs; it polls itself every 2 s until the request ends. */
export function requestLiveFragment(org: OrganizationRecord, r: AgentRequestRecord, extras: LiveExtras): RawHtml {
  const live = isLive(r);
  const url = `${BASE}/orgs/${org.id}/requests/${r.id}/live`;
  return html`<div id="request-live" ${live ? raw(`hx-get="${url}" hx-trigger="every 2s" hx-swap="outerHTML"`) : ''}>
    <p>
      Status <span class="status status-${r.status}" data-testid="request-status">${r.status}</span>
      ${live ? html`<small aria-busy="true">updating live</small>` : ''}
    </p>
    ${extras.decided ? notice(DECIDED[extras.decided][0], DECIDED[extras.decided][1], `DECIDED_${extras.decided.toUpperCase()}`) : ''}
    ${userActionPanel(r, extras.userAction, extras.now, {
      action: `${BASE}/orgs/${org.id}/requests/${r.id}/user-action`,
      csrfToken: extras.csrfToken,
    })}
    <table>
      <tbody>
        <tr><th>Method</th><td>${r.method ?? '—'}</td></tr>
        <tr><th>Created</th><td>${fmt(r.createdAt)}</td></tr>
        <tr><th>Started</th><td>${fmt(r.startedAt)}</td></tr>
        <tr><th>Completed</th><td>${fmt(r.completedAt)}</td></tr>
        <tr><th>Execution time</th><td>${r.executionTimeMs === null ? '—' : `${r.executionTimeMs} ms`}</td></tr>
        <tr><th>Attempts</th><td>${r.attempts}</td></tr>
        <tr>
          <th>Model usage</th>
          <td>${r.modelUsage ? `${r.modelUsage.calls} calls · ${r.modelUsage.promptTokens} prompt + ${r.modelUsage.completionTokens} completion tokens` : '—'}</td>
        </tr>
      </tbody>
    </table>
    <h2>Result</h2>
    ${json(r.result)}
    <h2>Error</h2>
    ${r.error ? html`<p class="notice error"><code>${r.error.code}</code> ${r.error.message}</p>` : html`<p>—</p>`}
    <h2>Trace (${(r.trace ?? []).length} steps)</h2>
    ${
      (r.trace ?? []).length === 0
        ? html`<p>No steps recorded yet.</p>`
        : html`<div class="table-wrap"><table class="striped trace" data-testid="trace">
          <thead><tr><th>#</th><th>Tool</th><th>Target</th><th>URL</th><th>Outcome</th><th>Duration</th></tr></thead>
          <tbody>
            ${(r.trace ?? []).map(
              (s, i) => html`<tr>
                  <td>${i + 1}</td>
                  <td>${s.tool}</td>
                  <td class="clip">${s.target ?? ''}</td>
                  <td class="clip">${s.url}</td>
                  <td><span class="status outcome-${s.outcome}">${s.outcome}</span>${s.error ? html`<br /><small>${s.error}</small>` : ''}</td>
                  <td>${Math.round(s.durationMs)} ms</td>
                </tr>
                ${
                  s.screenshot && SCREENSHOT.test(s.screenshot)
                    ? html`<tr>
                      <td></td>
                      <td colspan="5"><img class="screenshot" alt="Screenshot of step ${i + 1}" src="data:image/jpeg;base64,${s.screenshot}" /></td>
                    </tr>`
                    : ''
                }`,
            )}
          </tbody>
        </table></div>`
    }
  </div>`;
}

const APPROVAL_WORDS: Record<NonNullable<AgentRequestRecord['approval']>, string> = {
  writes: 'writes: every write waits for the user',
  first_write: 'first_write: writes wait for the user until one is approved',
};

export function requestDetailPage(
  ctx: PageContext,
  org: OrganizationRecord,
  nav: RawHtml,
  r: AgentRequestRecord,
  providerName: string,
  extras: LiveExtras,
): string {
  return layout(
    ctx,
    `Agent request ${r.id}`,
    html`<p><a href="${BASE}/orgs/${org.id}/requests?env=${r.environment}">← Agent requests</a></p>
      <h1><code class="id-full">${r.id}</code></h1>
      <table>
        <tbody>
          <tr><th>Environment</th><td>${r.environment}</td></tr>
          <tr><th>Provider</th><td>${providerName}</td></tr>
          <tr><th>Connection</th><td>${idRef(r.connectionId, `${BASE}/orgs/${org.id}/connections/${r.connectionId}`)}</td></tr>
          <tr><th>Action</th><td>${r.action}</td></tr>
          <tr><th>Starting URL</th><td>${r.startingUrl}</td></tr>
          <tr><th>Timeout</th><td>${r.timeoutMs} ms</td></tr>
          <tr><th>Mode</th><td>${r.mode}</td></tr>
          <tr><th>Approval</th><td data-testid="request-approval">${r.approval ? APPROVAL_WORDS[r.approval] : '—'}</td></tr>
        </tbody>
      </table>
      <h2>Parameters</h2>
      ${json(r.parameters)}
      <h2>Response format</h2>
      ${json(r.responseFormat)} ${requestLiveFragment(org, r, extras)}`,
    { nav },
  );
}
