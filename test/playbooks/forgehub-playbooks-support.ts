import type { Page } from 'playwright-core';

import { builtInCatalogue, builtInPlaybooks } from '../support/integrations';
import { live } from './live-worker-support';

/**
 * What forgehub.playbooks.test.ts routes and runs: the built-in registry routing against ForgeHub (no browser), the
 * actions each playbook must (and no playbook may) match; against the live AgentLink (live-worker-support.ts), the
 * responseFormat of a repository list and repositories created through the site's own form.
 */
const registry = builtInPlaybooks();
const forgehub = builtInCatalogue('http://localhost:3000').bySlug('forgehub', 'sandbox')!;
// Started on a repository's page, as "star this repository" is.
export const route = (action: string, parameters: unknown = {}) =>
  registry.route({
    action,
    provider: forgehub,
    parameters,
    signal: new AbortController().signal,
    startingUrl: 'http://forgehub.sandbox.localhost:3000/openfoundry/atlas',
  });
export const routed = async (action: string, parameters: unknown = {}) => (await route(action, parameters)).playbook?.name ?? null;

const repo = { name: 'demo' };
const issue = { repository: 'openfoundry/atlas', title: 'Crash on start' };
/** Actions as people write them, with parameters, and the playbook each routes to. */
export const ROUTED_ACTIONS: [string, Record<string, unknown>, string][] = [
  ['List my repositories', {}, 'forgehub.list-my-repositories'],
  ['Show my repos', { limit: 5 }, 'forgehub.list-my-repositories'],
  ['What are my ForgeHub repositories?', {}, 'forgehub.list-my-repositories'],
  ['my repositories', {}, 'forgehub.list-my-repositories'],
  ['Get my private repositories with their star counts', {}, 'forgehub.list-my-repositories'],
  ['Find the repositories I own', { query: 'dot' }, 'forgehub.list-my-repositories'],
  ['Create a repository called demo', repo, 'forgehub.create-repository'],
  ['Create a new private repo', repo, 'forgehub.create-repository'],
  ['Make a new repository for my notes', repo, 'forgehub.create-repository'],
  ['Set up a repository', repo, 'forgehub.create-repository'],
  ['New repository', repo, 'forgehub.create-repository'],
  ['Open an issue in openfoundry/atlas', issue, 'forgehub.open-issue'],
  ['File a bug report for csv-surgeon', issue, 'forgehub.open-issue'],
  ['Create a new issue', issue, 'forgehub.open-issue'],
  ['Report a bug', issue, 'forgehub.open-issue'],
  ['Submit a feature request', issue, 'forgehub.open-issue'],
  ['Create an issue in the new repo', issue, 'forgehub.open-issue'],
  ['Open an issue in my repository dotfiles', issue, 'forgehub.open-issue'],
  ['Star openfoundry/atlas', {}, 'forgehub.star-repository'],
  ['Star this repository and tell me its star count', {}, 'forgehub.star-repository'],
  ['Go to kestrel-labs/kestrel and star it', {}, 'forgehub.star-repository'],
  ['Give openfoundry/atlas a star', {}, 'forgehub.star-repository'],
  ['Star the new repo', { repository: 'a/b' }, 'forgehub.star-repository'],
  ['Delete my repository hello-world', {}, 'forgehub.delete-repository'],
  ['Delete the repository openfoundry/atlas', {}, 'forgehub.delete-repository'],
  ['Remove the repo called old-experiments', {}, 'forgehub.delete-repository'],
  ['Please delete my notes repo', { repository: 'notes' }, 'forgehub.delete-repository'],
  ['Erase the repository demo-app', {}, 'forgehub.delete-repository'],
];

/** What no playbook covers (issues, stars, notifications … have their own: forgehub-issues.playbook.test.ts). */
export const UNROUTED_ACTIONS = [
  'Unstar openfoundry/atlas',
  'Open issue #3 in openfoundry/atlas',
  'Fork openfoundry/atlas',
  'List the repositories on this page',
  'Delete issue #3 in openfoundry/atlas',
  'Watch openfoundry/atlas',
];

export const start = (path = '/') => live.siteUrl('forgehub', path);

/** A list of repositories, each with all it shows. */
export const REPO_FORMAT = {
  repositories: [
    {
      name: 'string',
      fullName: 'string',
      description: 'string?',
      visibility: 'string',
      stars: 'integer',
      language: 'string?',
      url: 'url',
    },
  ],
  count: 'integer',
};

/** Creates repositories through the site's own form (as a person would, without the playbook). */
export async function createRepos(page: Page, names: string[]) {
  await page.goto(start('/new'));
  const csrf = (await page.locator('meta[name="csrf-token"]').getAttribute('content'))!;
  for (const name of names) {
    // From the page (Chromium resolves *.localhost; Node does not): the form post, following the redirect.
    const landed = await page.evaluate(
      async ({ csrf, name }) =>
        (
          await fetch('/new', {
            method: 'POST',
            body: new URLSearchParams({ _csrf: csrf, name, description: `Repository ${name}`, visibility: 'public' }),
          })
        ).url,
      { csrf, name },
    );
    expect(new URL(landed).pathname).toBe(`/user_good/${name}`);
  }
}
