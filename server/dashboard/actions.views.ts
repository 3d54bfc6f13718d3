import type { ProviderAction } from '../../contract/schemas';
import { html, type RawHtml } from '../sandbox/kit/html';

/**
 * The action catalogue on the connections page: for each provider of the environment, what it can run without
 * a model (its playbooks), with example requests to copy, the parameters and the result fields. The same data
 * as GET /api/providers/{providerId}/actions.
 */
export interface ProviderActions {
  providerId: string;
  name: string;
  actions: ProviderAction[];
}

const parameterList = (schema: Record<string, unknown>): RawHtml => {
  const properties = (schema.properties ?? {}) as Record<string, { type?: string; 'x-from-action'?: string }>;
  const required = new Set((schema.required ?? []) as string[]);
  const names = Object.keys(properties);
  if (names.length === 0) return html`<em>none</em>`;
  return html`${names.map(
    (n, i) =>
      html`${i ? ', ' : ''}<code>${n}</code>${required.has(n) ? '' : '?'}${properties[n]!['x-from-action'] ? html` <small>(or in the action)</small>` : ''}`,
  )}`;
};

export function actionCatalogueSection(providers: ProviderActions[]): RawHtml {
  const withActions = providers.filter((p) => p.actions.length > 0);
  return html`<section data-testid="action-catalogue">
    <h2>What you can ask without a model</h2>
    <p>
      These actions run as tested routines (playbooks): an agent request whose <code>action</code> is phrased like an example runs
      one with no model configured, or name it with <code>playbook</code>. From code: <code>GET /api/providers/{providerId}/actions</code>.
    </p>
    ${
      withActions.length === 0
        ? html`<p>No provider of this environment has playbooks.</p>`
        : withActions.map(
            (p) => html`<details data-provider-id="${p.providerId}">
              <summary>${p.name} — ${p.actions.length} actions</summary>
              <table class="striped">
                <thead><tr><th>Action</th><th>Ask for example</th><th>Parameters</th><th>Result fields</th></tr></thead>
                <tbody>
                  ${p.actions.map(
                    (a) => html`<tr data-action="${a.name}">
                      <td><code>${a.name}</code>${a.writes ? html` <small class="status status-FAILED">writes</small>` : ''}<br /><small>${a.description}</small></td>
                      <td>${a.examples.slice(0, 3).map((e, i) => html`${i ? html`<br />` : ''}“${e}”`)}</td>
                      <td>${parameterList(a.parameters)}</td>
                      <td>${Object.keys(a.resultFields).map((f, i) => html`${i ? ', ' : ''}<code>${f}</code>`)}</td>
                    </tr>`,
                  )}
                </tbody>
              </table>
            </details>`,
          )
    }
  </section>`;
}
