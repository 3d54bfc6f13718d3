import { html, type RawHtml } from '../sandbox/kit/html';
import type { DashboardInvitationRecord, OrganizationRecord, OrgMembershipRole } from '../store';
import type { Member } from './members.service';
import { cell, dataTable, when } from './table-kit';
import { BASE, csrfField, layout, notice, type PageContext } from './views';

export interface MembersPageData {
  members: Member[];
  invitations: DashboardInvitationRecord[];
  /** The signed-in person: their role decides which buttons show; their own row says "you". */
  me: { userId: string; role: OrgMembershipRole };
  /** An invitation link just made (shown once, from the flash). */
  invitationUrl?: string;
  notice?: MembersNotice;
}

/** What the page says of the last action; `code`: the service's stable code of a refusal. */
export interface MembersNotice {
  text: string;
  kind: 'ok' | 'error';
  code?: string;
}

/** The people of an organization: the list (owners may remove), the invitations still open, and inviting someone. */
export function membersPage(ctx: PageContext, org: OrganizationRecord, nav: RawHtml, d: MembersPageData): string {
  const base = `${BASE}/orgs/${org.id}`;
  const owner = d.me.role === 'owner';
  const owners = d.members.filter((m) => m.role === 'owner').length;
  const removable = (m: Member) => owner && !(m.role === 'owner' && owners <= 1);
  const rows = d.members.map(
    (m) =>
      html`<tr data-testid="member-row">
        ${cell('Email', html`${m.email}${m.userId === d.me.userId ? html` <small>(you)</small>` : ''}`)} ${cell('Role', m.role)}
        ${cell('Member since', when(m.since))}
        ${cell(
          'Remove',
          removable(m)
            ? html`<form method="post" action="${base}/members/${m.userId}/remove" class="inline">
                ${csrfField(ctx)}
                <button type="submit" class="secondary outline" aria-label="Remove ${m.email}">
                  ${m.userId === d.me.userId ? 'Leave' : 'Remove'}
                </button>
              </form>`
            : html`<small>${m.role === 'owner' && owners <= 1 ? 'last owner' : '—'}</small>`,
          'actions',
        )}
      </tr>`,
  );
  const pending = d.invitations.map(
    (i) =>
      html`<tr data-testid="invitation-row">
        ${cell('Role', i.role)} ${cell('Created', when(i.createdAt))} ${cell('Expires', when(i.expiresAt))}
        ${cell(
          'Withdraw',
          // The same rule as InvitationService.revoke: an owner, or whoever made the link.
          owner || i.createdBy === d.me.userId
            ? html`<form method="post" action="${base}/invitations/${i.id}/revoke" class="inline">
                ${csrfField(ctx)}<button type="submit" class="secondary outline">Withdraw</button>
              </form>`
            : html`<small>—</small>`,
          'actions',
        )}
      </tr>`,
  );
  return layout(
    ctx,
    `${org.name} members`,
    html`<h1>Members of ${org.name}</h1>
      ${d.notice ? notice(d.notice.text, d.notice.kind, d.notice.code) : ''}
      ${
        d.invitationUrl
          ? html`<article data-testid="new-invitation">
              <label
                >Invitation link
                <fieldset role="group">
                  <input type="text" readonly value="${d.invitationUrl}" data-testid="invitation-url" />
                  <button type="button" class="secondary" data-copy="${d.invitationUrl}">Copy</button>
                </fieldset></label
              >
              <p class="notice warn" role="status">
                Send it to the person you invite: it is shown this once, works once, and expires in 7 days.
              </p>
            </article>`
          : ''
      }
      ${dataTable({ testId: 'members', labels: ['Email', 'Role', 'Member since', 'Remove'], body: rows })}
      <article>
        <header><strong>Invite someone</strong></header>
        <p>An invitation link lets one person join ${org.name} (signing up first if they have no account).</p>
        <form method="post" action="${base}/invitations">
          ${csrfField(ctx)}
          <fieldset role="group">
            <select name="role" aria-label="Role of the person invited">
              <option value="member">as a member</option>
              ${owner ? html`<option value="owner">as an owner</option>` : ''}
            </select>
            <button type="submit">Create invitation link</button>
          </fieldset>
        </form>
        ${
          pending.length
            ? dataTable({ testId: 'invitations', labels: ['Role', 'Created', 'Expires', 'Withdraw'], body: pending })
            : html`<p><small>No invitation is open.</small></p>`
        }
      </article>
      ${
        owner
          ? html`<article>
              <header><strong>Add an existing account</strong></header>
              <form method="post" action="${base}/members">
                ${csrfField(ctx)}
                <fieldset role="group">
                  <input type="email" name="email" placeholder="Email of an existing dashboard account" required aria-label="Member email" />
                  <button type="submit" class="secondary">Add member</button>
                </fieldset>
              </form>
            </article>`
          : ''
      }`,
    { nav },
  );
}
