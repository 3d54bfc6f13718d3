import type { Page } from 'playwright-core';

import { FORGEHUB_PROVIDER_ID } from '../../server/integrations/forgehub/forgehub.provider';
import { builtInCatalogue, builtInPlaybooks } from '../support/integrations';
import { contexts, live, useLiveWorker } from './live-worker-support';
import { collapsed, connectedOrg, expectPlaybookResult, type Json, readable, runAction, siteAs } from './playbook-support';

/**
 * ForgeHub's playbooks for what people ask first (issue #13): their issues, a repository's star count, the open
 * issues of a repository, notifications, closing and commenting on an issue (and the repositories they
 * starred). Routing in plain words and the values read from them first (no browser), then each end to end: a
 * live AgentLink with its worker and Chromium, a sandbox connection per test (its own copy of ForgeHub), the
 * request over the API in the words people use, and the site's state checked afterwards.
 */
jest.setTimeout(240_000);

const registry = builtInPlaybooks();
const forgehub = builtInCatalogue('http://localhost:3000').bySlug('forgehub', 'sandbox')!;
const route = (action: string, extra: { parameters?: unknown; startingUrl?: string; mode?: 'read' | 'read_write' } = {}) =>
  registry.route({ action, provider: forgehub, parameters: extra.parameters ?? {}, signal: new AbortController().signal, ...extra });
const site = 'http://forgehub.sandbox.localhost:4000';

describe('routing in plain words, with the values the words carry (no browser)', () => {
  it.each([
    ['List my issues', 'forgehub.list-my-issues', {}],
    ['Show my open issues', 'forgehub.list-my-issues', {}],
    ['Which of my issues are closed?', 'forgehub.list-my-issues', {}],
    ['List the issues opened in my repositories', 'forgehub.list-my-issues', {}],
    ['How many stars does openfoundry/atlas have?', 'forgehub.read-repository', { repository: 'openfoundry/atlas' }],
    ['Star count of openfoundry/atlas', 'forgehub.read-repository', { repository: 'openfoundry/atlas' }],
    ['List open issues in openfoundry/atlas', 'forgehub.list-issues', { repository: 'openfoundry/atlas' }],
    ['List the 5 newest issues in kestrel-labs/kestrel', 'forgehub.list-issues', { repository: 'kestrel-labs/kestrel', limit: 5 }],
    ['How many open issues does openfoundry/atlas have?', 'forgehub.list-issues', { repository: 'openfoundry/atlas' }],
    ['List my notifications', 'forgehub.read-notifications', {}],
    ['Do I have unread notifications?', 'forgehub.read-notifications', {}],
    ['Close issue #12 in acme/api', 'forgehub.close-issue', { repository: 'acme/api', number: 12 }],
    ['Resolve issue #7 in openfoundry/atlas', 'forgehub.close-issue', { repository: 'openfoundry/atlas', number: 7 }],
    ["Comment 'LGTM' on issue #3 in acme/api", 'forgehub.comment-on-issue', { repository: 'acme/api', number: 3, text: 'LGTM' }],
    ['List my starred repositories', 'forgehub.list-starred-repositories', {}],
    ['Star openfoundry/atlas', 'forgehub.star-repository', { repository: 'openfoundry/atlas' }],
  ])('%s → %s %j', async (action, playbook, params) => {
    const r = await route(action);
    if (!r.playbook) throw new Error(`not routed: ${r.reason}`);
    expect(r.playbook.name).toBe(playbook);
    expect(r.params).toEqual(params);
  });

  it('the page the request starts on names the repository and the issue; the sentence and the parameters come first', async () => {
    const onIssue = `${site}/openfoundry/atlas/issues/3`;
    expect(await route('Close this issue', { startingUrl: onIssue })).toMatchObject({
      playbook: { name: 'forgehub.close-issue' },
      params: { repository: 'openfoundry/atlas', number: 3 },
    });
    expect(await route("Comment 'LGTM' on issue #4", { startingUrl: onIssue })).toMatchObject({
      playbook: { name: 'forgehub.comment-on-issue' },
      params: { repository: 'openfoundry/atlas', number: 4, text: 'LGTM' },
    });
    expect(await route('How many stars does this repository have?', { startingUrl: `${site}/kestrel-labs/kestrel/issues` })).toMatchObject({
      params: { repository: 'kestrel-labs/kestrel' },
    });
    expect(await route('Close issue #2', { startingUrl: onIssue, parameters: { repository: 'user_good/dotfiles' } })).toMatchObject({
      params: { repository: 'user_good/dotfiles', number: 2 },
    });
  });

  it('a request that lacks the repository or the issue says which parameter, before any browser', async () => {
    expect(await route('Close issue 3', { startingUrl: `${site}/` })).toMatchObject({
      playbook: null,
      problem: {
        kind: 'parameters',
        playbook: 'forgehub.close-issue',
        code: 'PLAYBOOK_PARAMETERS_MISSING',
        issues: [{ path: 'parameters.repository' }],
      },
    });
    expect(await route('Comment on the first issue')).toMatchObject({
      problem: { kind: 'parameters', playbook: 'forgehub.comment-on-issue', code: 'PLAYBOOK_PARAMETERS_MISSING' },
    });
    expect(await route('Close this issue', { startingUrl: `${site}/openfoundry/atlas` })).toMatchObject({
      problem: { kind: 'parameters', issues: [{ path: 'parameters.number' }] },
    });
    expect(await route('Close issue #3', { parameters: { repository: 'atlas' } })).toMatchObject({
      problem: { kind: 'parameters', code: 'PLAYBOOK_PARAMETERS_INVALID', issues: [{ path: 'parameters.repository' }] },
    });
  });

  it('a read-only request never gets a playbook that writes', async () => {
    for (const action of ['Close issue #12 in acme/api', "Comment 'LGTM' on issue #3 in acme/api"]) {
      expect(await route(action, { mode: 'read' })).toMatchObject({ playbook: null, problem: { kind: 'read-only' } });
    }
    expect(await route('List open issues in openfoundry/atlas', { mode: 'read' })).toMatchObject({
      playbook: { name: 'forgehub.list-issues' },
    });
  });
});

describe('end to end against the simulated ForgeHub', () => {
  useLiveWorker();

  const start = (path = '/') => live.siteUrl('forgehub', path);
  type Org = Awaited<ReturnType<typeof connectedOrg>>;
  const run = async (org: Org, action: string, responseFormat: Record<string, unknown>, extra: Json = {}) =>
    runAction(live, org, { action, startingUrl: extra.startingUrl ?? start('/'), responseFormat, ...extra });
  const completed = async (org: Org, playbook: string, action: string, responseFormat: Record<string, unknown>, extra: Json = {}) =>
    expectPlaybookResult(await run(org, action, responseFormat, extra), responseFormat, playbook);
  const failed = (record: Json, code: string, message: string) => {
    if (record.status !== 'FAILED') throw new Error(`expected FAILED, got:\n${readable(record)}`);
    expect(record.error).toMatchObject({ code, message: expect.stringContaining(message) });
  };
  const stateOf = async (page: Page, path: string) => {
    await page.goto(start(path));
    return collapsed(await page.locator('main h1 + div span').first().innerText());
  };

  it('lists my issues (created by me, in my repositories, open or closed)', async () => {
    const org = await connectedOrg(live, FORGEHUB_PROVIDER_ID, 'My issues org');
    const format = {
      issues: [{ repository: 'string', number: 'integer', title: 'string', state: 'string', author: 'string', url: 'url' }],
      count: 'integer',
    };
    const mine = await completed(org, 'forgehub.list-my-issues', 'List my issues', format);
    expect(mine).toEqual({
      issues: [
        {
          repository: 'user_good/dotfiles',
          number: 2,
          title: 'Add a tmux config for the new laptop',
          state: 'open',
          author: 'user_good',
          url: start('/user_good/dotfiles/issues/2'),
        },
      ],
      count: 1,
    });
    const closed = await completed(org, 'forgehub.list-my-issues', 'Which of my issues are closed?', { titles: ['string'] });
    expect(closed).toEqual({ titles: ['Move the reading list here'] });
    const inMine = await completed(org, 'forgehub.list-my-issues', 'List the issues opened in my repositories', {
      issues: [{ number: 'integer', author: 'string' }],
      scope: 'string',
    });
    expect(inMine).toEqual({
      issues: [
        { number: 1, author: 'tobiasw' },
        { number: 2, author: 'user_good' },
      ],
      scope: 'repositories',
    });

    // The same on the site's own page.
    const page = await siteAs(live, contexts, org.organizationId, 'forgehub', '/');
    await page.getByRole('navigation', { name: 'Global' }).getByRole('link', { name: 'Issues' }).click();
    expect(collapsed(await page.getByRole('list', { name: 'Open issues' }).innerText())).toContain('Add a tmux config for the new laptop');
  });

  it("reads a repository's star count (by name, and from the page the request starts on); an unknown repository is an error", async () => {
    const org = await connectedOrg(live, FORGEHUB_PROVIDER_ID, 'Stars org');
    const format = { stars: 'integer', forks: 'integer', openIssues: 'integer', starred: 'boolean', language: 'string' };
    const atlas = await completed(org, 'forgehub.read-repository', 'How many stars does openfoundry/atlas have?', format);
    // 1,843 from the wider world plus the seven sandbox users; 22 open issues.
    expect(atlas).toEqual({ stars: 1850, forks: 212, openIssues: 22, starred: true, language: 'Go' });
    const page = await siteAs(live, contexts, org.organizationId, 'forgehub', '/openfoundry/atlas');
    expect(collapsed(await page.locator('main form[action$="/unstar"]').innerText())).toContain('1,850');

    const here = await completed(
      org,
      'forgehub.read-repository',
      'How many stars does this repository have?',
      { repository: 'string', stars: 'integer' },
      { startingUrl: start('/user_good/dotfiles/issues') },
    );
    expect(here).toEqual({ repository: 'user_good/dotfiles', stars: 3 });

    failed(
      await run(org, 'How many stars does nobody-here/nothing have?', format),
      'PLAYBOOK_FAILED',
      'ForgeHub has no repository nobody-here/nothing that this account can see',
    );
    // Someone else's private repository is just as unknown.
    failed(
      await run(org, 'How many stars does user_mfa/notes have?', format),
      'PLAYBOOK_FAILED',
      'ForgeHub has no repository user_mfa/notes',
    );
  });

  it('lists the open issues of a repository with "Load more" as needed, and the total the page counts', async () => {
    const org = await connectedOrg(live, FORGEHUB_PROVIDER_ID, 'Open issues org');
    const format = {
      issues: [{ number: 'integer', title: 'string', author: 'string', labels: ['string'], comments: 'integer', url: 'url' }],
      count: 'integer',
      total: 'integer',
    };
    const record = await run(org, 'List the 15 newest issues in openfoundry/atlas', format);
    const result = expectPlaybookResult(record, format, 'forgehub.list-issues');
    expect(result.count).toBe(15);
    expect(result.total).toBe(22);
    expect(record.trace.filter((s: Json) => s.target === "button 'Load more'")).toHaveLength(1);
    // Newest first: 28 issues, #28 the newest, the closed ones (2, 5, 8, 13, 18, 20) left out.
    expect(result.issues.map((i: Json) => i.number)).toEqual([28, 27, 26, 25, 24, 23, 22, 21, 19, 17, 16, 15, 14, 12, 11]);
    expect(result.issues.find((i: Json) => i.number === 21)).toMatchObject({ comments: 1, url: start('/openfoundry/atlas/issues/21') });

    const page = await siteAs(live, contexts, org.organizationId, 'forgehub', '/openfoundry/atlas/issues');
    const shown = await page.getByRole('list', { name: 'Open issues' }).getByRole('listitem').allInnerTexts();
    shown.forEach((text, i) => expect(collapsed(text)).toContain(result.issues[i].title));

    // Every one (the default reads up to 30), from the repository page the request starts on.
    const all = await completed(
      org,
      'forgehub.list-issues',
      'Show the open issues of this repo',
      { numbers: ['integer'], total: 'integer' },
      { startingUrl: start('/openfoundry/atlas') },
    );
    expect(all.numbers).toHaveLength(22);
    expect(all.total).toBe(22);
    const closed = await completed(
      org,
      'forgehub.list-issues',
      'Show closed issues of this repo',
      { numbers: ['integer'] },
      { startingUrl: start('/openfoundry/atlas') },
    );
    expect(closed.numbers).toEqual([20, 18, 13, 8, 5, 2]);
  });

  it('reads notifications without marking them read', async () => {
    const org = await connectedOrg(live, FORGEHUB_PROVIDER_ID, 'Notifications org');
    const format = {
      notifications: [
        {
          repository: 'string',
          number: 'integer',
          subject: 'string',
          actor: 'string',
          action: 'string',
          reason: 'string',
          unread: 'boolean',
          url: 'url',
        },
      ],
      unreadCount: 'integer',
    };
    const all = await completed(org, 'forgehub.read-notifications', 'List my notifications', format);
    expect(all.notifications).toHaveLength(3);
    expect(all.notifications[1]).toEqual({
      repository: 'user_good/dotfiles',
      number: 1,
      subject: 'zsh prompt is slow inside large git repositories',
      actor: 'tobiasw',
      action: 'opened',
      reason: 'Owner',
      unread: true,
      url: start('/user_good/dotfiles/issues/1'),
    });
    expect(all.notifications.map((n: Json) => [n.repository, n.action, n.unread])).toEqual([
      ['openfoundry/atlas', 'commented', true],
      ['user_good/dotfiles', 'opened', true],
      ['kestrel-labs/kestrel', 'closed', false],
    ]);
    expect(all.unreadCount).toBe(2);
    const unread = await completed(org, 'forgehub.read-notifications', 'Do I have unread notifications?', { subjects: ['string'] });
    expect(unread.subjects).toHaveLength(2);

    const page = await siteAs(live, contexts, org.organizationId, 'forgehub', '/');
    expect(await page.evaluate(async () => (await (await fetch('/notifications/count')).json()).unread)).toBe(2);
  });

  it('closes an issue after confirming (once: closing again changes nothing); one the user may not close, or that does not exist, is an error', async () => {
    const org = await connectedOrg(live, FORGEHUB_PROVIDER_ID, 'Close issue org');
    const page = await siteAs(live, contexts, org.organizationId, 'forgehub', '/');
    const format = { closed: 'boolean', alreadyClosed: 'boolean', state: 'string', title: 'string', url: 'url' };

    const readOnly = await run(org, 'Close issue #1 in user_good/dotfiles', format, { mode: 'read' });
    expect(readOnly).toMatchObject({ status: 'FAILED', method: null });
    expect(await stateOf(page, '/user_good/dotfiles/issues/1')).toBe('Open');

    const record = await run(org, 'Close issue #1 in user_good/dotfiles', format);
    expect(expectPlaybookResult(record, format, 'forgehub.close-issue')).toEqual({
      closed: true,
      alreadyClosed: false,
      state: 'closed',
      title: 'zsh prompt is slow inside large git repositories',
      url: start('/user_good/dotfiles/issues/1'),
    });
    expect(record.trace.map((s: Json) => s.target)).toContain("button 'Close issue' (confirmation)");
    expect(await stateOf(page, '/user_good/dotfiles/issues/1')).toBe('Closed');
    expect(collapsed(await page.locator('main').innerText())).toContain('user_good closed this as completed');

    const again = await completed(org, 'forgehub.close-issue', 'Close this issue', format, {
      startingUrl: start('/user_good/dotfiles/issues/1'),
    });
    expect(again).toMatchObject({ closed: true, alreadyClosed: true });
    expect(await page.locator('main').getByText('closed this as completed').count()).toBe(1);

    const notMine = await run(org, 'Close issue #3 in openfoundry/atlas', format);
    failed(notMine, 'PLAYBOOK_FAILED', 'this account may not close openfoundry/atlas#3: only its author (tobiasw) and the repository');
    expect(await stateOf(page, '/openfoundry/atlas/issues/3')).toBe('Open');
    failed(await run(org, 'Close issue #999 in user_good/dotfiles', format), 'PLAYBOOK_FAILED', 'user_good/dotfiles has no issue #999');
  });

  it('comments on an issue (repository from the page the request starts on), and the comment is in the timeline', async () => {
    const org = await connectedOrg(live, FORGEHUB_PROVIDER_ID, 'Comment org');
    const format = { commented: 'boolean', text: 'string', author: 'string', url: 'url', title: 'string', comments: 'integer' };
    const result = await completed(org, 'forgehub.comment-on-issue', "Comment 'LGTM, thanks for the **quick** fix!' on issue #1", format, {
      startingUrl: start('/user_good/dotfiles'),
    });
    expect(result).toEqual({
      commented: true,
      text: 'LGTM, thanks for the quick fix!',
      author: 'user_good',
      url: expect.stringMatching(new RegExp(`^${start('/user_good/dotfiles/issues/1')}#comment-`)),
      title: 'zsh prompt is slow inside large git repositories',
      comments: 2,
    });
    const page = await siteAs(live, contexts, org.organizationId, 'forgehub', new URL(result.url).pathname);
    const last = page.locator('main article[aria-label="Comment by user_good"]').last();
    expect(collapsed(await last.innerText())).toContain('LGTM, thanks for the quick fix!');
    expect(await last.locator('strong', { hasText: 'quick' }).count()).toBe(1);

    failed(
      await run(org, "Comment 'Hello' on issue #1 in nobody-here/nothing", format),
      'PLAYBOOK_FAILED',
      'ForgeHub has no repository nobody-here/nothing',
    );
  });

  it('lists the repositories I starred', async () => {
    const org = await connectedOrg(live, FORGEHUB_PROVIDER_ID, 'Starred org');
    const result = await completed(org, 'forgehub.list-starred-repositories', 'List my starred repositories', {
      repositories: [{ fullName: 'string', stars: 'integer' }],
      count: 'integer',
    });
    expect(result).toEqual({
      repositories: [
        { fullName: 'priya-k/a11y-checklist', stars: expect.any(Number) },
        { fullName: 'kestrel-labs/kestrel', stars: expect.any(Number) },
        { fullName: 'openfoundry/atlas', stars: 1850 },
      ],
      count: 3,
    });
  });
});
