import { html, type RawHtml } from '../sandbox/kit/html';
import type { OrganizationRecord, WebhookDeliveryRecord, WebhookEndpointRecord, WebhookEventRecord } from '../store';
import { cell, dataTable, when } from './table-kit';
import { BASE, layout, type PageContext } from './views';

/** Pretty JSON when the payload parses (it always should: we wrote it), else the raw body as sent. */
function pretty(payload: string): string {
  try {
    return JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    return payload;
  }
}

/** One delivery: what was sent (the event body, byte for byte what was signed), where, and each attempt's answer. */
export function webhookDeliveryPage(
  ctx: PageContext,
  org: OrganizationRecord,
  nav: RawHtml,
  endpoint: WebhookEndpointRecord,
  delivery: WebhookDeliveryRecord,
  event: WebhookEventRecord,
): string {
  const back = `${BASE}/orgs/${org.id}/webhooks/${endpoint.id}`;
  return layout(
    ctx,
    `Delivery ${delivery.id}`,
    html`<p><a href="${back}">← ${endpoint.url}</a></p>
      <h1>${delivery.eventType} <small><code class="id-full">${delivery.id}</code></small></h1>
      <p>
        <span class="status">${delivery.status}</span> · event <code class="id-full">${event.id}</code> · created
        ${when(delivery.createdAt)}
      </p>
      <h2>Payload</h2>
      <p><small>The request body as it was signed and sent (Standard Webhooks: webhook-id ${event.id}).</small></p>
      <pre data-testid="delivery-payload"><code>${pretty(event.payload)}</code></pre>
      <h2>Attempts</h2>
      ${
        delivery.attemptLog.length === 0
          ? html`<p>Not attempted yet: it is queued and goes out shortly.</p>`
          : dataTable({
              testId: 'delivery-attempts',
              labels: ['Attempt', 'At', 'Response', 'Error', 'Duration'],
              body: delivery.attemptLog.map(
                (a) => html`<tr>
                  ${cell('Attempt', a.attempt, 'num')} ${cell('At', when(new Date(a.at)))} ${cell('Response', a.responseStatus ?? '—')}
                  ${cell('Error', a.error ?? '—', 'wrap')} ${cell('Duration', `${Math.round(a.durationMs)} ms`, 'num')}
                </tr>`,
              ),
            })
      }`,
    { nav },
  );
}
