import { REDIRECT_URI_LIMITS } from '../../contract/redirect-uri-schemas';
import type { Environment } from '../config';
import { html, raw, type RawHtml } from '../sandbox/kit/html';
import type { OrganizationRecord, RedirectUriRecord } from '../store';
import { cell, dataTable, when } from './table-kit';
import { BASE, csrfField, envSwitch, layout, notice, type PageContext } from './views';

/** The allowed redirect URIs of one environment: the list with a remove button each, and the form to add one. */
export function redirectUrisPage(
  ctx: PageContext,
  org: OrganizationRecord,
  nav: RawHtml,
  env: Environment,
  uris: RedirectUriRecord[],
  opts: { error?: string; message?: string; uri?: string } = {},
): string {
  const base = `${BASE}/orgs/${org.id}/redirect-uris`;
  const full = uris.length >= REDIRECT_URI_LIMITS.perEnvironmentMax;
  return layout(
    ctx,
    'Redirect URIs',
    html`<h1>Redirect URIs</h1>
      ${envSwitch(base, env)}
      <p>
        Where a hosted link (<code>/link?token=…</code> sent as a plain link) sends the browser when it ends: pass one of these, exactly as
        listed, as <code>completionRedirectUri</code> when you create the link token.
      </p>
      ${notice(opts.message, 'ok')}
      ${
        uris.length === 0
          ? html`<p data-testid="empty-state">No ${env} redirect URIs yet. Add the page hosted links should return to.</p>`
          : dataTable({
              testId: 'redirect-uris',
              labels: ['URI', 'Added', ''],
              body: uris.map(
                (u) => html`<tr data-redirect-uri-id="${u.id}">
                  ${cell('URI', html`<code>${u.uri}</code>`, 'wrap')} ${cell('Added', when(u.createdAt))}
                  ${cell(
                    '',
                    html`<form method="post" action="${base}/${u.id}/delete" class="inline">
                      ${csrfField(ctx)}<button type="submit" class="secondary outline">Remove</button>
                    </form>`,
                  )}
                </tr>`,
              ),
            })
      }
      <article>
        <h2>Add a redirect URI (${env})</h2>
        <p>
          <small
            >https only${env === 'sandbox' ? html`; plain http for <code>localhost</code>, <code>127.0.0.1</code> or <code>[::1]</code>` : ''}. No
            <code>#fragment</code>, no <code>user:password@</code>. Your own query parameters are kept. ${uris.length} of
            ${REDIRECT_URI_LIMITS.perEnvironmentMax} used.</small
          >
        </p>
        ${notice(opts.error)}
        <form method="post" action="${base}">
          ${csrfField(ctx)}
          <input type="hidden" name="env" value="${env}" />
          <label
            >URI
            <input
              type="url"
              name="uri"
              required
              maxlength="${REDIRECT_URI_LIMITS.uriMax}"
              value="${opts.uri ?? ''}"
              placeholder="https://app.example.com/agentlink/done"
          /></label>
          <button type="submit" ${full ? raw('disabled') : ''}>Add redirect URI</button>
        </form>
      </article>`,
    { nav },
  );
}
