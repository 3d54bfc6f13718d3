import type { SignupMode } from '../config';
import { html } from '../sandbox/kit/html';
import type { OrganizationRecord, OrgMembershipRole } from '../store';
import { BASE, csrfField, layout, notice, type PageContext } from './views';

/** Someone opened an invitation link: join (signed in), or sign up through it, or sign in first. */
export function invitationPage(
  ctx: PageContext,
  opts: {
    token: string;
    organization: OrganizationRecord;
    role: OrgMembershipRole;
    signedIn: boolean;
    signup: SignupMode;
    error?: string;
    email?: string;
  },
): string {
  const base = `${BASE}/invitations/${opts.token}`;
  const next = encodeURIComponent(base);
  return layout(
    ctx,
    `Join ${opts.organization.name}`,
    html`<article class="narrow">
      <h1>Join ${opts.organization.name}</h1>
      <p>You are invited to join <strong>${opts.organization.name}</strong> as ${opts.role === 'owner' ? 'an owner' : 'a member'}.</p>
      ${notice(opts.error)}
      ${
        opts.signedIn
          ? html`<form method="post" action="${base}/accept">
              ${csrfField(ctx)}<button type="submit">Join ${opts.organization.name}</button>
            </form>`
          : opts.signup === 'closed'
            ? html`<p>Sign in with your account to accept it (this server takes no new accounts).</p>
                <a role="button" href="${BASE}/sign-in?next=${next}">Sign in</a>`
            : html`<form method="post" action="${base}/sign-up">
                  ${csrfField(ctx)}
                  <label>Email <input type="email" name="email" autocomplete="email" required value="${opts.email ?? ''}" /></label>
                  <label>Password <input type="password" name="password" autocomplete="new-password" required minlength="10" /></label>
                  <button type="submit">Create account and join</button>
                </form>
                <p>Already have an account? <a href="${BASE}/sign-in?next=${next}">Sign in</a> first.</p>`
      }
    </article>`,
  );
}
