import type { Environment, SignupMode } from '../config';
import { html, raw, type RawHtml } from '../sandbox/kit/html';
import type { OrganizationRecord } from '../store';
import { cell, dataTable, when } from './table-kit';

/**
 * The dashboard's pages: server-rendered HTML styled by Pico CSS, with htmx for the live parts. Every
 * interpolation goes through the escaping html`` template; every POST form carries the session's CSRF token.
 */
export const BASE = '/dashboard';

export interface PageContext {
  csrfToken: string;
  email?: string;
  /** AGENTLINK_SIGNUP=open: the header offers Sign up. */
  signupOpen?: boolean;
}

const fmt = when;

export const csrfField = (ctx: PageContext) => html`<input type="hidden" name="_csrf" value="${ctx.csrfToken}" />`;

export function layout(ctx: PageContext, title: string, body: RawHtml, opts: { nav?: RawHtml } = {}): string {
  const page = html`<!doctype html>
<html lang="en" data-theme="light">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="htmx-config" content='{"includeIndicatorStyles": false, "allowEval": false}' />
    <title>${title} · AgentLink dashboard</title>
    <link rel="stylesheet" href="${BASE}/assets/pico.min.css" />
    <link rel="stylesheet" href="${BASE}/assets/dashboard.css" />
    <script src="${BASE}/assets/htmx.min.js" defer></script>
    <script src="${BASE}/assets/dashboard.js" defer></script>
  </head>
  <body hx-headers='${JSON.stringify({ 'x-csrf-token': ctx.csrfToken })}'>
    <header class="container">
      <nav>
        <ul>
          <li><a href="${BASE}/orgs"><strong>AgentLink</strong></a></li>
          ${opts.nav ?? ''}
        </ul>
        <ul>
          ${
            ctx.email
              ? html`<li><small>${ctx.email}</small></li>
                <li>
                  <form method="post" action="${BASE}/sign-out" class="inline">
                    ${csrfField(ctx)}<button type="submit" class="secondary outline">Sign out</button>
                  </form>
                </li>`
              : html`<li><a href="${BASE}/sign-in">Sign in</a></li>
                ${ctx.signupOpen === false ? '' : html`<li><a href="${BASE}/sign-up">Sign up</a></li>`}`
          }
        </ul>
      </nav>
    </header>
    <main class="container">${body}</main>
  </body>
</html>`;
  return page.value;
}

/** error: something failed; ok: something was done; warn: act now (a secret shown once). */
/** A notice; `code`, for a refusal, is the service's stable error code (data-code), for scripts and tests to read. */
export function notice(message: string | undefined, kind: 'error' | 'ok' | 'warn' = 'error', code?: string): RawHtml {
  if (!message) return html``;
  const role = kind === 'error' ? 'alert' : 'status';
  return code
    ? html`<p class="notice ${kind}" role="${role}" data-code="${code}">${message}</p>`
    : html`<p class="notice ${kind}" role="${role}">${message}</p>`;
}

export function authPage(
  ctx: PageContext,
  mode: 'sign-in' | 'sign-up',
  opts: { error?: string; email?: string; next?: string; signup?: SignupMode } = {},
): string {
  const signUp = mode === 'sign-up';
  return layout(
    ctx,
    signUp ? 'Sign up' : 'Sign in',
    html`<article class="narrow">
      <h1>${signUp ? 'Create your account' : 'Sign in'}</h1>
      ${notice(opts.error)}
      <form method="post" action="${BASE}/${mode}">
        ${csrfField(ctx)} ${opts.next ? html`<input type="hidden" name="next" value="${opts.next}" />` : ''}
        <label>Email <input type="email" name="email" autocomplete="email" required value="${opts.email ?? ''}" /></label>
        <label
          >Password
          <input type="password" name="password" autocomplete="${signUp ? 'new-password' : 'current-password'}" required ${signUp ? raw('minlength="10"') : ''}
        /></label>
        <button type="submit">${signUp ? 'Sign up' : 'Sign in'}</button>
      </form>
      <p>
        ${
          signUp
            ? html`Already have an account? <a href="${BASE}/sign-in">Sign in</a>`
            : (opts.signup ?? 'open') === 'open'
              ? html`No account yet? <a href="${BASE}/sign-up">Sign up</a>`
              : html`No account yet? Ask a member of your organization for an invitation link.`
        }
      </p>
    </article>`,
  );
}

/** AGENTLINK_SIGNUP is not `open`: what the sign-up page says instead of its form. */
export function signupClosedPage(ctx: PageContext, mode: SignupMode): string {
  return layout(
    ctx,
    'Sign-up closed',
    html`<article class="narrow">
      <h1>Sign-up is ${mode === 'invite' ? 'by invitation' : 'closed'}</h1>
      <p>
        ${
          mode === 'invite'
            ? 'This server creates accounts only through invitation links. Ask a member of your organization for one (Members → Create invitation link), or the operator (agentlink org invite).'
            : 'This server takes no new dashboard accounts (AGENTLINK_SIGNUP=closed). If you were sent an invitation link and already have an account, sign in and open the link again.'
        }
      </p>
      <p><a href="${BASE}/sign-in">Sign in</a></p>
    </article>`,
  );
}

export function messagePage(ctx: PageContext, title: string, message: string, status?: string): string {
  return layout(
    ctx,
    title,
    html`<article><h1>${status ? `${status} · ` : ''}${title}</h1><p>${message}</p><p><a href="${BASE}/orgs">Back to your organizations</a></p></article>`,
  );
}

export function orgNav(
  org: OrganizationRecord,
  active: 'overview' | 'members' | 'connections' | 'requests' | 'webhooks' | 'providers' | 'redirects',
  opts: { webhooks: boolean },
): RawHtml {
  const item = (key: typeof active, label: string, href: string) =>
    html`<li><a href="${href}" ${active === key ? raw('aria-current="page"') : ''}>${label}</a></li>`;
  const base = `${BASE}/orgs/${org.id}`;
  return html`<li>${org.name}</li>
    ${item('overview', 'Credentials', base)} ${item('members', 'Members', `${base}/members`)}
    ${item('connections', 'Connections', `${base}/connections`)}
    ${item('requests', 'Agent requests', `${base}/requests`)} ${opts.webhooks ? item('webhooks', 'Webhooks', `${base}/webhooks`) : ''}
    ${opts.webhooks ? item('providers', 'Providers', `${base}/providers`) : ''}
    ${opts.webhooks ? item('redirects', 'Redirect URIs', `${base}/redirect-uris`) : ''}`;
}

export function orgListPage(ctx: PageContext, orgs: { organization: OrganizationRecord; role: string }[], error?: string): string {
  return layout(
    ctx,
    'Organizations',
    html`<h1>Your organizations</h1>
      ${
        orgs.length === 0
          ? html`<p data-testid="empty-state">
              You do not belong to an organization yet. Create one below to get API credentials, or open the invitation link a member
              sent you.
            </p>`
          : dataTable({
              labels: ['Name', 'Client ID', 'Your role', 'Created'],
              body: orgs.map(
                (m) =>
                  html`<tr>
                    ${cell(
                      'Name',
                      m.organization.disabledAt
                        ? html`${m.organization.name} <small class="tag">disabled</small>`
                        : html`<a href="${BASE}/orgs/${m.organization.id}">${m.organization.name}</a>`,
                    )}
                    ${cell('Client ID', html`<code>${m.organization.clientId}</code>`)} ${cell('Your role', m.role)}
                    ${cell('Created', fmt(m.organization.createdAt))}
                  </tr>`,
              ),
            })
      }
      <article>
        <h2>Create an organization</h2>
        ${notice(error)}
        <form method="post" action="${BASE}/orgs">
          ${csrfField(ctx)}
          <fieldset role="group">
            <input name="name" placeholder="Organization name" required maxlength="120" aria-label="Organization name" />
            <button type="submit">Create organization</button>
          </fieldset>
        </form>
      </article>`,
  );
}

const secretBlock = (label: string, testId: string, value: string) =>
  html`<label
    >${label}
    <fieldset role="group">
      <input type="text" readonly value="${value}" data-testid="${testId}" />
      <button type="button" class="secondary" data-copy="${value}">Copy</button>
    </fieldset></label
  >`;

export function credentialsPage(
  ctx: PageContext,
  org: OrganizationRecord,
  nav: RawHtml,
  opts: { secrets?: Partial<Record<Environment, string>>; message?: string; warning?: string },
): string {
  const shown = opts.secrets ?? {};
  const envRow = (env: Environment) =>
    html`<article>
      <header><strong>${env === 'sandbox' ? 'Sandbox' : 'Production'} secret</strong></header>
      ${
        shown[env]
          ? html`${secretBlock(`${env} secret`, `${env}-secret`, shown[env]!)}
            <p class="notice warn" role="status">Copy it now: it is shown this once and cannot be shown again.</p>`
          : html`<p>Stored only as a hash; it cannot be shown again. Rotate it to get a new one (the current one stops working).</p>`
      }
      <a role="button" class="secondary outline" href="${BASE}/orgs/${org.id}/secrets/${env}/rotate">Rotate ${env} secret</a>
    </article>`;
  return layout(
    ctx,
    `${org.name} credentials`,
    html`<h1>${org.name}</h1>
      ${notice(opts.message, 'ok')} ${notice(opts.warning, 'warn')}
      ${secretBlock('Client ID', 'client-id', org.clientId)}
      <p><small>Organization id <code>${org.id}</code> · created ${fmt(org.createdAt)}</small></p>
      ${envRow('sandbox')} ${envRow('production')}
      <article>
        <header><strong>Members</strong></header>
        <p>See who has access, invite people with a link, or remove someone: <a href="${BASE}/orgs/${org.id}/members">Members</a>.</p>
      </article>`,
    { nav },
  );
}

export function rotateConfirmPage(ctx: PageContext, org: OrganizationRecord, nav: RawHtml, env: Environment): string {
  return layout(
    ctx,
    `Rotate ${env} secret`,
    html`<article>
      <h1>Rotate the ${env} secret of ${org.name}?</h1>
      <p>A new ${env} secret is issued and shown once. <strong>The current ${env} secret stops working immediately</strong>: every backend that uses it gets 401 until it has the new one.</p>
      <form method="post" action="${BASE}/orgs/${org.id}/secrets/${env}/rotate">
        ${csrfField(ctx)}
        <input type="hidden" name="confirm" value="yes" />
        <div class="grid">
          <a role="button" class="secondary outline" href="${BASE}/orgs/${org.id}">Cancel</a>
          <button type="submit" class="contrast">Yes, rotate the ${env} secret</button>
        </div>
      </form>
    </article>`,
    { nav },
  );
}

export function envSwitch(basePath: string, env: Environment, extra: Record<string, string> = {}): RawHtml {
  const link = (e: Environment) => {
    const qs = new URLSearchParams({ ...extra, env: e }).toString();
    return html`<a role="button" class="${e === env ? '' : 'secondary outline'}" href="${basePath}?${qs}">${e}</a>`;
  };
  return html`<p class="env-switch">${link('sandbox')} ${link('production')}</p>`;
}
