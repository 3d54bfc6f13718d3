import { FORGEHUB_PROVIDER_ID } from '../../server/integrations/forgehub/forgehub.provider';
import { createRepos, REPO_FORMAT, route, routed, ROUTED_ACTIONS, start, UNROUTED_ACTIONS } from './forgehub-playbooks-support';
import { contexts, live, useLiveWorker } from './live-worker-support';
import { collapsed, connectedOrg, expectPlaybookResult, runAction, siteAs } from './playbook-support';

/**
 * The ForgeHub playbooks: routing by text (no browser), then each playbook for real, end to end: a live
 * AgentLink with its worker and Chromium, a sandbox connection per test (its own copy of ForgeHub), the
 * request over the API, and the effect checked afterwards on the site in a separate signed-in context.
 * The routing tables, the repositories' responseFormat and creating repositories on the site:
 * forgehub-playbooks-support.ts.
 */
jest.setTimeout(90_000);

describe('routing (text match, no browser)', () => {
  it.each(ROUTED_ACTIONS)('%s → %s', async (action, parameters, expected) => {
    expect(await routed(action, parameters)).toBe(expected);
  });

  // What no playbook covers (issues, stars, notifications … have their own: forgehub-issues.playbook.test.ts).
  it.each(UNROUTED_ACTIONS)('%s → no playbook', async (action) => {
    expect(await route(action, {})).toMatchObject({
      playbook: null,
      reason: 'no forgehub playbook matches the action',
      problem: { kind: 'no-match' },
    });
  });

  it('fills inputs from the parameters (with common aliases) and refuses parameters that do not fit', async () => {
    expect(await route('Create a repository', { repoName: 'demo', visibility: 'Private', about: 'Demo' })).toMatchObject({
      playbook: { name: 'forgehub.create-repository' },
      params: { name: 'demo', visibility: 'private', description: 'Demo' },
    });
    for (const bad of [
      {},
      { name: 'bad name' },
      { name: 'x'.repeat(101) },
      { name: 'demo', visibility: 'internal' },
      { name: 'demo', license: 'MIT' },
    ]) {
      expect(await route('Create a repository', bad)).toMatchObject({
        playbook: null,
        reason: expect.stringMatching(
          /^playbook forgehub\.create-repository matches, but the request (lacks|has parameters that do not fit)/,
        ),
      });
    }
    expect(await route('Open an issue', { repo: 'openfoundry/atlas', subject: 'Hi', description: 'Body' })).toMatchObject({
      params: { repository: 'openfoundry/atlas', title: 'Hi', body: 'Body' },
    });
    for (const bad of [
      { repository: 'openfoundry/atlas' },
      { repository: 'atlas', title: 'Hi' },
      { repository: 'openfoundry/atlas', title: 'Hi', assignee: 'me' },
    ]) {
      expect((await route('Open an issue', bad)).playbook).toBeNull();
    }
    expect(await route('List my repositories', { limit: '5', q: 'dot' })).toMatchObject({ params: { limit: 5, query: 'dot' } });
    expect((await route('List my repositories', { limit: 500 })).playbook).toBeNull();
    expect((await route('Star openfoundry/atlas', { repository: 'not a repo' })).playbook).toBeNull();
  });

  it('fills the repository to delete from the action or the parameters, never from the page the request starts on', async () => {
    expect(await route('Delete my repository hello-world')).toMatchObject({ params: { repository: 'hello-world' } });
    expect(await route("Delete the repo called 'notes'")).toMatchObject({ params: { repository: 'notes' } });
    expect(await route('Delete repo user_good/throwaway')).toMatchObject({ params: { repository: 'user_good/throwaway' } });
    expect(await route('Delete a repository', { repo: 'dotfiles', owner: 'user_good' })).toMatchObject({
      params: { repository: 'dotfiles', owner: 'user_good' },
    });
    // Started on openfoundry/atlas's page (route() does), "this repository" is not taken from there: a deletion names what it deletes.
    expect(await route('Delete this repository')).toMatchObject({
      playbook: null,
      problem: { kind: 'parameters', playbook: 'forgehub.delete-repository', code: 'PLAYBOOK_PARAMETERS_MISSING' },
    });
    for (const bad of [{ repository: 'two words' }, { repository: 'a/b', owner: 'c' }, { repository: 'x', force: true }]) {
      expect(await route('Delete a repository', bad)).toMatchObject({
        playbook: null,
        problem: { kind: 'parameters', playbook: 'forgehub.delete-repository', code: 'PLAYBOOK_PARAMETERS_INVALID' },
      });
    }
  });
});

describe('end to end against the simulated ForgeHub', () => {
  useLiveWorker();

  it('forgehub.list-my-repositories reads the repositories the user owns, through the search and its pagination', async () => {
    const org = await connectedOrg(live, FORGEHUB_PROVIDER_ID, 'List repos org');
    const record = await runAction(live, org, { action: 'List my repositories', startingUrl: start('/'), responseFormat: REPO_FORMAT });
    const result = expectPlaybookResult(record, REPO_FORMAT, 'forgehub.list-my-repositories');
    expect(result).toEqual({
      repositories: [
        {
          name: 'dotfiles',
          fullName: 'user_good/dotfiles',
          description: 'My dotfiles: zsh, tmux and neovim configuration.',
          visibility: 'public',
          stars: 3,
          language: 'Shell',
          url: start('/user_good/dotfiles'),
        },
        {
          name: 'notes',
          fullName: 'user_good/notes',
          description: 'Private notes and drafts.',
          visibility: 'private',
          stars: 0,
          language: 'Markdown',
          url: start('/user_good/notes'),
        },
      ],
      count: 2,
    });

    // Twelve more: fourteen in all, over two pages of the list; the same set as the profile's Repositories tab.
    const page = await siteAs(live, contexts, org.organizationId, 'forgehub', '/');
    const names = Array.from({ length: 12 }, (_, i) => `extra-${String(i + 1).padStart(2, '0')}`);
    await createRepos(page, names);
    const all = await runAction(live, org, {
      action: 'Show my repos',
      startingUrl: start('/repositories'),
      responseFormat: { repos: [{ fullName: 'string', private: 'boolean' }], total: 'integer' },
    });
    const listed = expectPlaybookResult(
      all,
      { repos: [{ fullName: 'string', private: 'boolean' }], total: 'integer' },
      'forgehub.list-my-repositories',
    );
    expect(listed.total).toBe(14);
    expect(all.trace.filter((s: { tool: string; target: string }) => s.tool === 'click' && /Next/.test(s.target))).toHaveLength(1);
    await page.goto(start('/user_good?tab=repositories'));
    const onProfile = (await page.getByRole('list', { name: 'Repositories' }).getByRole('heading').allInnerTexts()).map((t) =>
      collapsed(t).replace(/ (Public|Private)$/, ''),
    );
    expect(listed.repos.map((r: { fullName: string }) => r.fullName).sort()).toEqual(onProfile.sort());
    expect(listed.repos.filter((r: { private: boolean }) => r.private).map((r: { fullName: string }) => r.fullName)).toEqual([
      'user_good/notes',
    ]);

    // A limit, a query, and the visibility named in the action.
    const some = await runAction(live, org, {
      action: 'List my repositories',
      startingUrl: start('/'),
      parameters: { limit: 3 },
      responseFormat: { names: ['string'] },
    });
    expect(expectPlaybookResult(some, { names: ['string'] }, 'forgehub.list-my-repositories').names).toEqual(
      listed.repos.slice(0, 3).map((r: { fullName: string }) => r.fullName.split('/')[1]),
    );
    const query = await runAction(live, org, {
      action: 'Find my repositories',
      startingUrl: start('/'),
      parameters: { query: 'extra-1' },
      responseFormat: { names: ['string'] },
    });
    expect(expectPlaybookResult(query, { names: ['string'] }, 'forgehub.list-my-repositories').names.sort()).toEqual([
      'extra-10',
      'extra-11',
      'extra-12',
    ]);
    const privateOnes = await runAction(live, org, {
      action: 'List my private repositories',
      startingUrl: start('/'),
      responseFormat: REPO_FORMAT,
    });
    expect(
      expectPlaybookResult(privateOnes, REPO_FORMAT, 'forgehub.list-my-repositories').repositories.map((r: { name: string }) => r.name),
    ).toEqual(['notes']);
  });

  it("forgehub.create-repository creates a private repository (form, visibility listbox) and it is listed; a taken name fails with ForgeHub's message", async () => {
    const org = await connectedOrg(live, FORGEHUB_PROVIDER_ID, 'Create repo org');
    const responseFormat = { name: 'string', fullName: 'string', url: 'url', visibility: 'string', description: 'string?' };
    const parameters = { name: 'playbook-demo', description: 'Made by the create-repository playbook', visibility: 'private' };
    const record = await runAction(live, org, {
      action: 'Create a new private repository',
      startingUrl: start('/'),
      parameters,
      responseFormat,
    });
    const result = expectPlaybookResult(record, responseFormat, 'forgehub.create-repository');
    expect(result).toEqual({
      name: 'playbook-demo',
      fullName: 'user_good/playbook-demo',
      url: start('/user_good/playbook-demo'),
      visibility: 'private',
      description: 'Made by the create-repository playbook',
    });

    // On the site: in the list (search), private, with the description; invisible to another user.
    const page = await siteAs(live, contexts, org.organizationId, 'forgehub', '/repositories?q=playbook-demo');
    const row = page.getByRole('list', { name: 'Repositories' }).getByRole('listitem');
    expect(await row.count()).toBe(1);
    expect(collapsed(await row.innerText())).toMatch(/^user_good\/playbook-demo Private Made by the create-repository playbook/);
    const other = await siteAs(live, contexts, org.organizationId, 'forgehub', '/user_good/playbook-demo', 'user_mfa');
    expect(await other.getByRole('heading', { name: '404' }).count()).toBe(1);

    // Public by default, with a README.
    const second = await runAction(live, org, {
      action: 'Create a repository',
      startingUrl: start('/'),
      parameters: { name: 'second.repo', readme: true },
      responseFormat,
    });
    expect(expectPlaybookResult(second, responseFormat, 'forgehub.create-repository')).toMatchObject({
      fullName: 'user_good/second.repo',
      visibility: 'public',
      description: null,
    });
    await page.goto(start('/user_good/second.repo'));
    expect(await page.getByText('README.md').count()).toBe(1);

    // The same name again: ForgeHub refuses, and the request fails naming ForgeHub's message.
    const again = await runAction(live, org, {
      action: 'Create a new private repository',
      startingUrl: start('/'),
      parameters,
      responseFormat,
    });
    expect(again.status).toBe('FAILED');
    expect(again.method).toBe('PLAYBOOK');
    expect(again.error).toMatchObject({
      code: 'PLAYBOOK_FAILED',
      message: expect.stringContaining(
        'ForgeHub did not create the repository: There is a problem with your repository. The repository user_good/playbook-demo already exists on this account.',
      ),
      details: { playbook: 'forgehub.create-repository', step: { tool: 'click', target: "button 'Create repository'" } },
    });
    await page.goto(start('/repositories?q=playbook-demo'));
    expect(await page.getByRole('list', { name: 'Repositories' }).getByRole('listitem').count()).toBe(1);
  });

  it('forgehub.open-issue opens an issue (dialog, contenteditable editor) and it is in the issue list', async () => {
    const org = await connectedOrg(live, FORGEHUB_PROVIDER_ID, 'Open issue org');
    const responseFormat = { number: 'integer', title: 'string', url: 'url', state: 'string' };
    const body = 'Steps to reproduce:\n\n- start a 3-node cluster\n- restart the leader\n\nThe **leader** never comes back.';
    const record = await runAction(live, org, {
      action: 'Open an issue in openfoundry/atlas',
      startingUrl: start('/'),
      parameters: { repository: 'openfoundry/atlas', title: 'Leader does not rejoin after restart', body },
      responseFormat,
    });
    const result = expectPlaybookResult(record, responseFormat, 'forgehub.open-issue');
    expect(result).toEqual({
      number: 29,
      title: 'Leader does not rejoin after restart',
      url: start('/openfoundry/atlas/issues/29'),
      state: 'open',
    });

    const page = await siteAs(live, contexts, org.organizationId, 'forgehub', '/openfoundry/atlas/issues');
    const first = page.getByRole('list', { name: 'Open issues' }).getByRole('listitem').first();
    expect(collapsed(await first.innerText())).toMatch(/^Leader does not rejoin after restart #29 opened .* by user_good/);
    await page.goto(result.url);
    const opening = page.getByRole('article', { name: 'Comment by user_good' }).first();
    expect(collapsed(await opening.innerText())).toContain('start a 3-node cluster restart the leader The leader never comes back.');
    expect(await opening.locator('strong', { hasText: 'leader' }).count()).toBe(1);

    // "… in this repository", from the repository page the request starts on, with no repository parameter.
    const here = await runAction(live, org, {
      action: 'Open an issue in this repository',
      startingUrl: start('/tobiasw/tiny-lisp'),
      parameters: { title: 'Support tail calls in let forms' },
      responseFormat: { issueNumber: 'integer', repository: 'string', link: 'url' },
    });
    expect(expectPlaybookResult(here, { issueNumber: 'integer', repository: 'string', link: 'url' }, 'forgehub.open-issue')).toEqual({
      issueNumber: 2,
      repository: 'tobiasw/tiny-lisp',
      link: start('/tobiasw/tiny-lisp/issues/2'),
    });
    await page.goto(start('/tobiasw/tiny-lisp/issues'));
    expect(collapsed(await page.getByRole('list', { name: 'Open issues' }).getByRole('listitem').first().innerText())).toMatch(
      /^Support tail calls in let forms #2/,
    );

    // A repository that does not exist (for this user): fails with a clear message.
    const missing = await runAction(live, org, {
      action: 'Open an issue',
      startingUrl: start('/'),
      parameters: { repository: 'nobody/nothing', title: 'Hello' },
      responseFormat,
    });
    expect(missing.error).toMatchObject({
      code: 'PLAYBOOK_FAILED',
      message: expect.stringContaining('ForgeHub has no repository nobody/nothing that this account can see'),
    });
  });

  it('forgehub.star-repository stars a repository, is a no-op when starred already, and the star shows on the site', async () => {
    const org = await connectedOrg(live, FORGEHUB_PROVIDER_ID, 'Star repo org');
    const responseFormat = { repository: 'string', starred: 'boolean', stars: 'integer' };
    const record = await runAction(live, org, {
      action: 'Star tobiasw/tiny-lisp',
      startingUrl: start('/'),
      parameters: { repository: 'tobiasw/tiny-lisp' },
      responseFormat,
    });
    expect(expectPlaybookResult(record, responseFormat, 'forgehub.star-repository')).toEqual({
      repository: 'tobiasw/tiny-lisp',
      starred: true,
      stars: 403,
    });

    const page = await siteAs(live, contexts, org.organizationId, 'forgehub', '/stars');
    expect(await page.getByRole('list', { name: 'Starred repositories' }).getByRole('link', { name: 'tobiasw/tiny-lisp' }).count()).toBe(1);
    await page.goto(start('/tobiasw/tiny-lisp'));
    expect(await page.getByRole('button', { name: 'Unstar', pressed: true }).count()).toBe(1);

    // Again, from the action alone and the repository page: already starred, nothing changes.
    const again = await runAction(live, org, {
      action: 'Star this repository and tell me its star count',
      startingUrl: start('/tobiasw/tiny-lisp'),
      responseFormat: { starred: 'boolean', stars: 'integer', alreadyStarred: 'boolean' },
    });
    expect(
      expectPlaybookResult(again, { starred: 'boolean', stars: 'integer', alreadyStarred: 'boolean' }, 'forgehub.star-repository'),
    ).toEqual({ starred: true, stars: 403, alreadyStarred: true });
    expect(again.trace.some((s: { target: string }) => s.target === "button 'Star'")).toBe(false);
    await page.reload();
    expect(collapsed(await page.getByRole('button', { name: 'Unstar' }).locator('..').innerText())).toContain('403');

    // Not on ForgeHub: a clear failure.
    const missing = await runAction(live, org, { action: 'Star nobody/nothing', startingUrl: start('/'), responseFormat });
    expect(missing.error).toMatchObject({
      code: 'PLAYBOOK_FAILED',
      message: expect.stringContaining('ForgeHub has no repository nobody/nothing that this account can see'),
    });
  });
});
