import type { SiteDefinition } from '../../../sandbox/kit/site';
import { dashboardRoutes } from './pages/dashboard';
import { issueRoutes } from './pages/issues';
import { myIssueRoutes } from './pages/my-issues';
import { notificationRoutes } from './pages/notifications';
import { profileRoutes, starsRoutes } from './pages/people';
import { repoRoutes } from './pages/repo';
import { repositoryRoutes } from './pages/repositories';
import { settingsRoutes } from './pages/settings';
import { forgehubPrivateSeed } from './private-seed';
import { forgehubSeed } from './seed';
import { forgehubCss } from './styles';
import { layout, LOGO_SVG } from './ui';

/**
 * ForgeHub: the sandbox's developer platform, in the style of GitHub. Repositories (search, pagination,
 * create with a custom visibility listbox), stars, issues (composer dialog with a contenteditable editor,
 * comments, close behind a confirmation dialog, reopen, "Load more"), settings with "Delete this repository"
 * (type the name; user_stepup also confirms the password), profiles and notifications loaded after the page. Content lives in AgentLink's database, one copy per tenant.
 */
export const forgehubSite: SiteDefinition = {
  slug: 'forgehub',
  brand: { name: 'ForgeHub', css: forgehubCss, logoSvg: LOGO_SVG },
  homePath: '/',
  seed: () => [...forgehubSeed(), ...forgehubPrivateSeed()],
  layout,
  routes(router, kit) {
    // Fixed paths first: /:username and /:owner/:repo would otherwise capture them.
    dashboardRoutes(router, kit);
    repositoryRoutes(router, kit);
    notificationRoutes(router, kit);
    myIssueRoutes(router, kit);
    starsRoutes(router, kit);
    issueRoutes(router, kit);
    settingsRoutes(router, kit);
    repoRoutes(router, kit);
    profileRoutes(router, kit);
  },
};
