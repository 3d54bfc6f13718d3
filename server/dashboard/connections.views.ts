import type { Environment } from '../config';
import { presentConnection } from '../domain/presenters';
import { html, type RawHtml } from '../sandbox/kit/html';
import type { AgentRequestRecord, ConnectionRecord, OrganizationRecord } from '../store';
import { cell, dataTable, idRef, when } from './table-kit';
import { BASE, csrfField, envSwitch, layout, notice, type PageContext } from './views';

/** The connection pages: the list per environment, one connection with its latest requests, and revoking it. */
const connectionsBase = (org: OrganizationRecord) => `${BASE}/orgs/${org.id}/connections`;
const requestHref = (org: OrganizationRecord, id: string) => `${BASE}/orgs/${org.id}/requests/${id}`;
export const connectionHref = (org: OrganizationRecord, id: string) => `${connectionsBase(org)}/${id}`;

/** The last health check: its outcome and when (— before the first). */
function lastCheck(c: ConnectionRecord): RawHtml {
  if (!c.lastCheckedAt || !c.lastCheckOutcome) return html`—`;
  return html`<span class="status check-${c.lastCheckOutcome}">${c.lastCheckOutcome}</span><br />${when(c.lastCheckedAt)}`;
}

export function connectionsPage(
  ctx: PageContext,
  org: OrganizationRecord,
  nav: RawHtml,
  env: Environment,
  rows: ConnectionRecord[],
  providerName: (id: string) => string,
  nextCursor: string | null,
  actionCatalogue: RawHtml | '' = '',
): string {
  const base = connectionsBase(org);
  return layout(
    ctx,
    'Connections',
    html`<h1>Connections</h1>
      ${envSwitch(base, env)}
      ${
        rows.length === 0
          ? html`<p data-testid="empty-state">
              No ${env} connections yet. Create a link token (POST /api/link/token/create) and open the connect widget with it; in the
              sandbox, POST /api/sandbox/public_token/create makes one without a browser.
            </p>`
          : dataTable({
              testId: 'connections',
              className: 'has-actions',
              labels: ['Connection', 'Provider', 'clientUserId', 'Status', 'Last check', 'Created', 'Last used', ''],
              body: rows.map(
                (c) => html`<tr data-connection-id="${c.id}">
                  ${cell('Connection', idRef(c.id, connectionHref(org, c.id)))} ${cell('Provider', providerName(c.providerId))}
                  ${cell('clientUserId', c.clientUserId, 'clip')} ${cell('Status', html`<span class="status status-${c.status}">${c.status}</span>`)}
                  ${cell('Last check', lastCheck(c))} ${cell('Created', when(c.createdAt))} ${cell('Last used', when(c.lastUsedAt))}
                  ${cell('Revoke', c.status === 'REVOKED' ? '' : html`<a href="${base}/${c.id}/revoke">Revoke</a>`, 'actions')}
                </tr>`,
              ),
            })
      }
      ${nextCursor ? html`<p><a href="${base}?${new URLSearchParams({ env, cursor: nextCursor }).toString()}">Older connections →</a></p>` : ''}
      ${actionCatalogue}`,
    { nav },
  );
}

export function connectionDetailPage(
  ctx: PageContext,
  org: OrganizationRecord,
  nav: RawHtml,
  c: ConnectionRecord,
  providerName: string,
  requests: AgentRequestRecord[],
  /** What "Check now" just answered: an outcome, or why it was refused. */
  checked?: { outcome?: string; refused?: string },
): string {
  const base = connectionsBase(org);
  return layout(
    ctx,
    `Connection ${c.id}`,
    html`<p><a href="${base}?env=${c.environment}">← Connections</a></p>
      <h1><code class="id-full">${c.id}</code></h1>
      <table>
        <tbody>
          <tr><th>Environment</th><td>${c.environment}</td></tr>
          <tr><th>Provider</th><td>${providerName}</td></tr>
          <tr><th>clientUserId</th><td>${c.clientUserId}</td></tr>
          <tr><th>Status</th><td><span class="status status-${c.status}">${c.status}</span></td></tr>
          <tr><th>Created</th><td>${when(c.createdAt)}</td></tr>
          <tr><th>Last used</th><td>${when(c.lastUsedAt)}</td></tr>
          <tr><th>Last check</th><td data-testid="last-check">${lastCheck(c)}</td></tr>
          <tr><th>Next check</th><td>${c.status === 'ACTIVE' ? when(c.nextCheckAt) : '—'}</td></tr>
          <tr><th>Device</th><td data-testid="connection-device">${deviceText(c)}</td></tr>
          <tr><th>Exit</th><td data-testid="connection-exit">${exitText(c)}</td></tr>
        </tbody>
      </table>
      ${checked?.outcome ? notice(`Checked: ${checked.outcome}.`, 'ok') : ''} ${notice(checked?.refused)}
      ${
        c.status === 'REVOKED'
          ? ''
          : html`<form method="post" action="${base}/${c.id}/check" class="inline">
              ${csrfField(ctx)}
              <div class="grid">
                <button type="submit" class="secondary">Check the session now</button>
                <a role="button" class="secondary outline" href="${base}/${c.id}/revoke">Revoke</a>
              </div>
            </form>`
      }
      <h2>Latest agent requests</h2>
      ${
        requests.length === 0
          ? html`<p>No agent requests on this connection yet. Send one with POST /api/agent-requests and its access token.</p>`
          : dataTable({
              testId: 'connection-requests',
              labels: ['Request', 'Status', 'Action', 'Created'],
              body: requests.map(
                (r) => html`<tr data-request-id="${r.id}">
                  ${cell('Request', idRef(r.id, requestHref(org, r.id)))}
                  ${cell('Status', html`<span class="status status-${r.status}">${r.status}</span>`)} ${cell('Action', r.action, 'clip')}
                  ${cell('Created', when(r.createdAt))}
                </tr>`,
              ),
            })
      }`,
    { nav },
  );
}

/** The device every run of the connection presents (presented as the API shows it). */
function deviceText(c: ConnectionRecord): RawHtml | string {
  const d = presentConnection(c).device;
  if (!d) return 'None yet (chosen at its next run)';
  return html`${d.platform} · ${d.locale} · ${d.timezoneId} · ${d.viewport.width}×${d.viewport.height}<br /><small><code>${d.userAgent}</code></small>`;
}

/** Where its traffic leaves from: the label of its upstream proxy, never the proxy's address or credentials. */
function exitText(c: ConnectionRecord): string {
  const exit = presentConnection(c).exit;
  return exit.type === 'proxy' ? `Upstream proxy: ${exit.label}` : 'Direct';
}

export function revokeConfirmPage(
  ctx: PageContext,
  org: OrganizationRecord,
  nav: RawHtml,
  c: ConnectionRecord,
  providerName: string,
): string {
  const base = `${BASE}/orgs/${org.id}/connections`;
  return layout(
    ctx,
    'Revoke connection',
    html`<article>
      <h1>Revoke this connection?</h1>
      <p><code>${c.id}</code> · ${providerName} · ${c.clientUserId} (${c.environment})</p>
      <p>Its access tokens stop working and its stored session is deleted. This cannot be undone; the user would have to connect again.</p>
      <form method="post" action="${base}/${c.id}/revoke">
        ${csrfField(ctx)}
        <div class="grid">
          <a role="button" class="secondary outline" href="${base}?env=${c.environment}">Cancel</a>
          <button type="submit" class="contrast">Yes, revoke</button>
        </div>
      </form>
    </article>`,
    { nav },
  );
}
