import request from 'supertest';

import type { UserAction } from '../../contract/schemas';
import { relativeTime } from '../../server/dashboard/user-action.views';
import { newId } from '../../server/domain/ids';
import type { AgentRequestRecord } from '../../server/store';
import { describeEachStore, type TestApp } from '../support/app';
import { signedUpWithOrg } from '../support/dashboard-session';
import { insertPausedRequest, PAUSED_OWNER } from '../support/paused-request';

/**
 * A NEEDS_USER request on the dashboard: the status filter and badge, and on its page the "Waiting for the user" panel
 * (reason, message, since, expiry, the hosted link masked, the held write field by field), refreshed live. The message
 * and the held write are page-influenced text: they must come out escaped. The link token is shown to the
 * organization's members only, and not at all once the run went on.
 */

const XSS_MESSAGE = `<script>alert("msg")</script> Enter the code Orbit's page shows <b>now</b>`;
const XSS_FIELD = '<img src=x onerror=alert(2)>';

describeEachStore('dashboard agent requests: a run waiting for its user', (t: TestApp) => {
  const http = () => request(t.baseUrl);

  const pausedRequest = (orgId: string, ask: (id: string) => UserAction, overrides: Partial<AgentRequestRecord> = {}) =>
    insertPausedRequest(t.services, orgId, ask, overrides);

  const approvalAsk = (linkToken: string) => (): UserAction => {
    const now = t.clock.now().getTime();
    return {
      reason: 'APPROVAL',
      message: XSS_MESSAGE,
      since: new Date(now - 3 * 60_000).toISOString(),
      expiresAt: new Date(now + 7 * 60_000).toISOString(),
      linkToken,
      url: `${t.config.publicUrl}/link?token=${linkToken}`,
      write: {
        id: 'hw_test',
        method: 'POST',
        url: `http://orbit.sandbox.localhost:4000/api/messages?to="><svg onload=alert(3)>`,
        fields: [
          { name: 'text', value: XSS_FIELD },
          { name: 'password', value: '•••' },
        ],
        bodyBytes: 42,
      },
    };
  };

  it('shows what the run waits for, escaped, with the link masked and the held write, and keeps polling', async () => {
    const { cookie, orgId } = await signedUpWithOrg(t.baseUrl, 'Paused Co');
    const linkToken = `link-sandbox-${'a1'.repeat(32)}`;
    const id = await pausedRequest(orgId, approvalAsk(linkToken));

    const page = await http().get(`/dashboard/orgs/${orgId}/requests/${id}`).set('Cookie', cookie);
    expect(page.status).toBe(200);
    const body = page.text;
    expect(body).toContain('data-testid="request-status">NEEDS_USER<');
    expect(body).toMatch(/hx-get="\/dashboard\/orgs\/[^"]+\/requests\/[^"]+\/live" hx-trigger="every 2s"/);
    expect(body).toMatch(/data-testid="request-approval">writes: every write waits for the user</);
    const panel = body.slice(body.indexOf('data-testid="user-action"'));
    expect(panel).toContain('Waiting for the user');
    expect(panel).toContain('<code>APPROVAL</code>: a write waits for the user’s approval');
    // The page's words, escaped: no markup of theirs reaches the dashboard.
    expect(panel).toContain(
      '&lt;script&gt;alert(&quot;msg&quot;)&lt;/script&gt; Enter the code Orbit&#39;s page shows &lt;b&gt;now&lt;/b&gt;',
    );
    expect(body).not.toContain('<script>alert');
    expect(body).not.toContain('<b>now</b>');
    expect(body).not.toContain('<img src=x');
    expect(body).not.toContain('<svg onload');
    expect(panel).toContain('&lt;img src=x onerror=alert(2)&gt;');
    expect(panel).toContain('&quot;&gt;&lt;svg onload=alert(3)&gt;');
    expect(panel).toMatch(/data-testid="user-action-since">3 min ago · <time class="when" datetime="2026-01-01T11:57:00.000Z"/);
    expect(panel).toMatch(/data-testid="user-action-expires">in 7 min · <time class="when" datetime="2026-01-01T12:07:00.000Z"/);
    // The held write, field by field.
    expect(panel).toMatch(/data-testid="held-write"><code>POST<\/code>/);
    expect(panel).toContain('(42 bytes)');
    expect(panel).toContain('data-testid="held-write-fields"');
    expect(panel).toContain('<code>password</code>');
    // The link: masked in the field, whole behind "Show link" (kept open across refreshes) and on the Copy button.
    const url = `${t.config.publicUrl}/link?token=${linkToken}`;
    expect(panel).toContain(`value="${t.config.publicUrl}/link?token=•••" aria-label="Hosted link, masked"`);
    expect(panel).toContain(`data-copy="${url}">Copy</button>`);
    expect(panel).toMatch(/<details id="user-action-link-20260101T115700000Z" hx-preserve>\s*<summary>Show link<\/summary>/);
    expect(panel).toContain(`data-testid="user-action-url">${url}</code>`);

    // The live part (what htmx polls) carries the same panel.
    const live = await http().get(`/dashboard/orgs/${orgId}/requests/${id}/live`).set('Cookie', cookie);
    expect(live.status).toBe(200);
    expect(live.text).toContain('data-testid="user-action"');
    expect(live.text).toContain('hx-trigger="every 2s"');
    expect(live.text).not.toContain('<script>alert');

    // The list: the NEEDS_USER filter and badge.
    const list = await http().get(`/dashboard/orgs/${orgId}/requests?env=sandbox&status=NEEDS_USER`).set('Cookie', cookie);
    expect(list.text).toContain('<option value="NEEDS_USER" selected>NEEDS_USER</option>');
    expect(list.text).toContain(`data-request-id="${id}"`);
    expect(list.text).toContain('<span class="status status-NEEDS_USER">NEEDS_USER</span>');
    const running = await http().get(`/dashboard/orgs/${orgId}/requests?env=sandbox&status=RUNNING`).set('Cookie', cookie);
    expect(running.text).not.toContain(`data-request-id="${id}"`);
    // The stylesheet knows the badge.
    expect((await http().get('/dashboard/assets/dashboard.css')).text).toContain('.status-NEEDS_USER');
  });

  it('shows the link token to members of the organization only, and no longer once the run went on', async () => {
    const { cookie, orgId } = await signedUpWithOrg(t.baseUrl, 'Owner Co');
    const stranger = await signedUpWithOrg(t.baseUrl, 'Stranger Co');
    const linkToken = `link-sandbox-${'b2'.repeat(32)}`;
    const id = await pausedRequest(orgId, approvalAsk(linkToken));

    for (const path of [`/dashboard/orgs/${orgId}/requests/${id}`, `/dashboard/orgs/${orgId}/requests/${id}/live`]) {
      const res = await http().get(path).set('Cookie', stranger.cookie);
      expect(res.status).toBe(404);
      expect(res.text).not.toContain(linkToken);
    }
    // Another organization's page for the same id finds nothing either.
    expect((await http().get(`/dashboard/orgs/${stranger.orgId}/requests/${id}`).set('Cookie', stranger.cookie)).status).toBe(404);

    expect((await http().get(`/dashboard/orgs/${orgId}/requests/${id}`).set('Cookie', cookie)).text).toContain(linkToken);
    await t.store.repos.agentRequests.finish(id, PAUSED_OWNER, {
      status: 'FAILED',
      result: null,
      error: { code: 'DENIED_BY_USER', message: 'The user denied the write; nothing was sent.' },
      completedAt: t.clock.now(),
      executionTimeMs: 900,
    });
    const after = await http().get(`/dashboard/orgs/${orgId}/requests/${id}`).set('Cookie', cookie);
    expect(after.text).toContain('data-testid="request-status">FAILED<');
    expect(after.text).toContain('<code>DENIED_BY_USER</code>');
    expect(after.text).not.toContain('data-testid="user-action"');
    expect(after.text).not.toContain(linkToken);
    expect(after.text).not.toContain('hx-trigger="every 2s"');
  });

  it('says so when the user action cannot be opened, and shows no write for another reason', async () => {
    const { cookie, orgId } = await signedUpWithOrg(t.baseUrl, 'Sealed Co');
    const unreadable = await pausedRequest(orgId, approvalAsk(`link-sandbox-${'c3'.repeat(32)}`), { approval: null });
    // Sealed for another row: the seal is bound to its request, so it does not open here.
    const other = newId('areq');
    await t.store.dataSource.query(
      t.dialect === 'postgres'
        ? 'UPDATE agent_requests SET sealed_user_action = $1 WHERE id = $2'
        : 'UPDATE agent_requests SET sealed_user_action = ? WHERE id = ?',
      [t.services.userActions.seal(other, approvalAsk('link-sandbox-x')()), unreadable],
    );
    const page = await http().get(`/dashboard/orgs/${orgId}/requests/${unreadable}`).set('Cookie', cookie);
    expect(page.text).toContain('What the run waits for cannot be read here');
    expect(page.text).toMatch(/data-testid="request-approval">—</);

    const code = await pausedRequest(orgId, () => ({ ...approvalAsk(`link-sandbox-${'d4'.repeat(32)}`)(), reason: 'CODE', write: null }));
    const codePage = await http().get(`/dashboard/orgs/${orgId}/requests/${code}`).set('Cookie', cookie);
    expect(codePage.text).toContain('<code>CODE</code>: the provider asks for a code');
    expect(codePage.text).not.toContain('data-testid="held-write"');
  });
});

describe('relativeTime', () => {
  const now = new Date(Date.UTC(2026, 0, 1, 12, 0, 0));
  const at = (s: number) => new Date(now.getTime() + s * 1000);
  it('says how long ago or how soon, in seconds, minutes or hours', () => {
    expect(relativeTime(at(2), now)).toBe('just now');
    expect(relativeTime(at(-45), now)).toBe('45 s ago');
    expect(relativeTime(at(-180), now)).toBe('3 min ago');
    expect(relativeTime(at(420), now)).toBe('in 7 min');
    expect(relativeTime(at(3600), now)).toBe('in 1 h');
    expect(relativeTime(at(-3900), now)).toBe('1 h 5 min ago');
  });
});
