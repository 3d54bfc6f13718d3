import type { Environment } from '../config';
import type { DeclarationIssue } from '../providers/declaration';
import type { ProviderDefinition } from '../providers/provider';
import { html, type RawHtml } from '../sandbox/kit/html';
import type { OrganizationRecord } from '../store';
import { cell, dataTable, idRef } from './table-kit';
import { BASE, csrfField, envSwitch, layout, notice, type PageContext } from './views';

/** What a refused form shows: the message, and each bad field by its path in the declaration. */
export interface FormProblem {
  message: string;
  issues?: DeclarationIssue[];
}

const EXAMPLE = {
  name: 'Acme CRM',
  slug: 'acme-crm',
  category: 'developer',
  homeUrl: 'https://crm.acme.example/',
  loginUrl: 'https://crm.acme.example/login',
  allowedOrigins: ['crm.acme.example'],
  identityProviders: ['https://accounts.google.com'],
  logo: 'https://crm.acme.example/logo.svg',
  signedIn: { cookies: ['session'], urlPattern: '^https://crm\\.acme\\.example/home' },
};

function problem(p: FormProblem | undefined): RawHtml {
  if (!p) return html``;
  return html`${notice(p.message)}
    ${
      p.issues?.length
        ? html`<ul data-testid="declaration-issues">
          ${p.issues.map((i) => html`<li><code>${i.path}</code>: ${i.message}</li>`)}
        </ul>`
        : ''
    }`;
}

function declarationForm(ctx: PageContext, action: string, env: Environment, text: string, submit: string): RawHtml {
  return html`<form method="post" action="${action}">
    ${csrfField(ctx)}
    <input type="hidden" name="env" value="${env}" />
    <label
      >Declaration (JSON)
      <textarea name="declaration" rows="18" spellcheck="false" required data-testid="declaration">${text}</textarea>
    </label>
    <button type="submit">${submit}</button>
  </form>`;
}

/** The organization's own providers of one environment, the shared ones it can also use, and the form to add one. */
export function providersPage(
  ctx: PageContext,
  org: OrganizationRecord,
  nav: RawHtml,
  env: Environment,
  providers: ProviderDefinition[],
  opts: { problem?: FormProblem; text?: string } = {},
): string {
  const base = `${BASE}/orgs/${org.id}/providers`;
  const own = providers.filter((p) => p.source === 'organization');
  const shared = providers.filter((p) => p.source !== 'organization');
  return layout(
    ctx,
    'Providers',
    html`<h1>Providers</h1>
      ${envSwitch(base, env)}
      <p>Websites your organization can connect to in ${env}. Your own are visible to this organization and environment only.</p>
      <h2>Your providers</h2>
      ${
        own.length === 0
          ? html`<p data-testid="empty-state">No ${env} providers of your own yet. Declare one below (a site of yours, with its sign-in).</p>`
          : dataTable({
              testId: 'own-providers',
              labels: ['Name', 'Slug', 'Provider ID', 'Sign-in'],
              body: own.map(
                (p) => html`<tr data-provider-id="${p.providerId}">
                ${cell('Name', html`<a href="${base}/${p.providerId}">${p.name}</a>`)} ${cell('Slug', html`<code>${p.slug}</code>`)}
                ${cell('Provider ID', idRef(p.providerId))} ${cell('Sign-in', p.login ? 'recipe' : 'live view', 'wrap')}
              </tr>`,
              ),
            })
      }
      <details>
        <summary>Shared providers (${shared.length})</summary>
        <ul>
          ${shared.map((p) => html`<li>${p.name} <small>(${p.source ?? 'built-in'})</small></li>`)}
        </ul>
      </details>
      <article>
        <h2>Add a provider (${env})</h2>
        ${problem(opts.problem)} ${declarationForm(ctx, base, env, opts.text ?? JSON.stringify(EXAMPLE, null, 2), 'Add provider')}
      </article>`,
    { nav },
  );
}

/** One of the organization's providers: its declaration to edit, and the way to delete it. */
export function providerEditPage(
  ctx: PageContext,
  org: OrganizationRecord,
  nav: RawHtml,
  provider: ProviderDefinition,
  text: string,
  opts: { problem?: FormProblem; saved?: boolean } = {},
): string {
  const base = `${BASE}/orgs/${org.id}/providers`;
  return layout(
    ctx,
    provider.name,
    html`<p><a href="${base}?env=${provider.environment}">← Providers</a></p>
      <h1>${provider.name}</h1>
      <p><code>${provider.providerId}</code> · ${provider.environment} · <code>${provider.slug}</code></p>
      ${opts.saved ? notice('Saved.', 'ok') : ''} ${problem(opts.problem)}
      ${declarationForm(ctx, `${base}/${provider.providerId}`, provider.environment, text, 'Save')}
      <p><a role="button" class="secondary outline" href="${base}/${provider.providerId}/delete">Delete…</a></p>`,
    { nav },
  );
}

export function providerDeleteConfirmPage(
  ctx: PageContext,
  org: OrganizationRecord,
  nav: RawHtml,
  provider: ProviderDefinition,
  refused?: string,
): string {
  const base = `${BASE}/orgs/${org.id}/providers`;
  return layout(
    ctx,
    'Delete provider',
    html`<article>
      <h1>Delete ${provider.name}?</h1>
      <p>${provider.environment} · <code>${provider.slug}</code>. Link tokens that name it stop working.</p>
      ${notice(refused)}
      <form method="post" action="${base}/${provider.providerId}/delete">
        ${csrfField(ctx)}
        <div class="grid">
          <a role="button" class="secondary outline" href="${base}/${provider.providerId}">Cancel</a>
          <button type="submit" class="contrast">Yes, delete</button>
        </div>
      </form>
    </article>`,
    { nav },
  );
}
