import { WEBHOOK_EVENT_TYPES } from '../../contract/webhook-schemas';
import type { Environment } from '../config';
import { html, type RawHtml } from '../sandbox/kit/html';
import type { OrganizationRecord, WebhookDeliveryRecord, WebhookEndpointRecord } from '../store';
import { cell, dataTable, idRef, when } from './table-kit';
import { BASE, csrfField, envSwitch, layout, notice, type PageContext } from './views';

const fmt = when;

export function webhooksPage(
  ctx: PageContext,
  org: OrganizationRecord,
  nav: RawHtml,
  env: Environment,
  endpoints: WebhookEndpointRecord[],
  opts: { error?: string; created?: { endpoint: WebhookEndpointRecord; secret: string } } = {},
): string {
  const base = `${BASE}/orgs/${org.id}/webhooks`;
  return layout(
    ctx,
    'Webhooks',
    html`<h1>Webhooks</h1>
      ${envSwitch(base, env)}
      ${
        opts.created
          ? html`<article>
            <p class="notice ok" role="status">Added ${opts.created.endpoint.url}.</p>
            <p class="notice warn" role="status">Its signing secret is shown this once: copy it now.</p>
            <label
              >Signing secret
              <fieldset role="group">
                <input type="text" readonly value="${opts.created.secret}" data-testid="webhook-secret" />
                <button type="button" class="secondary" data-copy="${opts.created.secret}">Copy</button>
              </fieldset></label
            >
          </article>`
          : ''
      }
      ${
        endpoints.length === 0
          ? html`<p data-testid="empty-state">No ${env} webhook endpoints yet. Add one below to be told when connections and agent requests change.</p>`
          : dataTable({
              testId: 'webhook-endpoints',
              labels: ['URL', 'Events', 'Enabled', 'Created'],
              body: endpoints.map(
                (e) => html`<tr data-webhook-id="${e.id}">
                  ${cell('URL', html`<a href="${base}/${e.id}">${e.url}</a>${e.description ? html`<br /><small>${e.description}</small>` : ''}`, 'wrap')}
                  ${cell('Events', e.events.join(', '), 'wrap')} ${cell('Enabled', e.enabled ? 'yes' : 'no')} ${cell('Created', fmt(e.createdAt))}
                </tr>`,
              ),
            })
      }
      <article>
        <h2>Add an endpoint (${env})</h2>
        ${notice(opts.error)}
        <form method="post" action="${base}">
          ${csrfField(ctx)}
          <input type="hidden" name="env" value="${env}" />
          <label>URL <input type="url" name="url" required placeholder="https://example.com/agentlink/webhooks" /></label>
          <label>Description <input name="description" maxlength="500" /></label>
          <fieldset>
            <legend>Events</legend>
            ${WEBHOOK_EVENT_TYPES.map((t) => html`<label><input type="checkbox" name="events" value="${t}" checked /> ${t}</label>`)}
          </fieldset>
          <button type="submit">Add endpoint</button>
        </form>
      </article>`,
    { nav },
  );
}

export function webhookDetailPage(
  ctx: PageContext,
  org: OrganizationRecord,
  nav: RawHtml,
  endpoint: WebhookEndpointRecord,
  deliveries: WebhookDeliveryRecord[],
  nextCursor: string | null,
  message?: string,
): string {
  const base = `${BASE}/orgs/${org.id}/webhooks`;
  return layout(
    ctx,
    'Webhook endpoint',
    html`<p><a href="${base}?env=${endpoint.environment}">← Webhooks</a></p>
      <h1>${endpoint.url}</h1>
      ${notice(message, 'ok')}
      <p>
        <code>${endpoint.id}</code> · ${endpoint.environment} · ${endpoint.enabled ? 'enabled' : 'disabled'} · events: ${endpoint.events.join(', ')}
      </p>
      <h2>Recent deliveries</h2>
      ${
        deliveries.length === 0
          ? html`<p data-testid="empty-state">
              No deliveries yet: one is made for each subscribed event (connect an account or run an agent request to see one here).
            </p>`
          : dataTable({
              testId: 'webhook-deliveries',
              className: 'has-actions',
              labels: ['Delivery', 'Event', 'Status', 'Response', 'Attempts', 'Created', 'Re-send'],
              body: deliveries.map(
                (d) => html`<tr data-delivery-id="${d.id}">
                  ${cell('Delivery', idRef(d.id, `${base}/${endpoint.id}/deliveries/${d.id}`))} ${cell('Event', d.eventType)} ${cell('Status', html`<span class="status">${d.status}</span>`)}
                  ${cell(
                    'Response',
                    html`<span data-testid="response-code">${d.lastResponseStatus ?? '—'}</span>${d.lastError ? html`<br /><small>${d.lastError}</small>` : ''}`,
                    'wrap',
                  )}
                  ${cell('Attempts', d.attempts, 'num')} ${cell('Created', fmt(d.createdAt))}
                  ${cell(
                    'Re-send',
                    html`<form method="post" action="${base}/deliveries/${d.id}/resend" class="inline">
                      ${csrfField(ctx)}<button type="submit" class="secondary outline">Re-send</button>
                    </form>`,
                    'actions',
                  )}
                </tr>`,
              ),
            })
      }
      ${nextCursor ? html`<p><a href="${base}/${endpoint.id}?${new URLSearchParams({ cursor: nextCursor }).toString()}">Older deliveries →</a></p>` : ''}
      <article>
        <header><strong>Delete this endpoint</strong></header>
        <p>Deliveries stop at once, and its delivery log is deleted.</p>
        <a role="button" class="secondary outline" href="${base}/${endpoint.id}/delete">Delete endpoint…</a>
      </article>`,
    { nav },
  );
}

export function webhookDeleteConfirmPage(ctx: PageContext, org: OrganizationRecord, nav: RawHtml, endpoint: WebhookEndpointRecord): string {
  const base = `${BASE}/orgs/${org.id}/webhooks`;
  return layout(
    ctx,
    'Delete webhook endpoint',
    html`<article>
      <h1>Delete this webhook endpoint?</h1>
      <p>${endpoint.url} (${endpoint.environment})</p>
      <form method="post" action="${base}/${endpoint.id}/delete">
        ${csrfField(ctx)}
        <div class="grid">
          <a role="button" class="secondary outline" href="${base}/${endpoint.id}">Cancel</a>
          <button type="submit" class="contrast">Yes, delete</button>
        </div>
      </form>
    </article>`,
    { nav },
  );
}
