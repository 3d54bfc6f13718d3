import type { Integration } from '../integration';
import { forgehubProvider } from './forgehub.provider';
import { forgehubCloseIssue } from './playbooks/close-issue.playbook';
import { forgehubCommentOnIssue } from './playbooks/comment-on-issue.playbook';
import { forgehubCreateRepository } from './playbooks/create-repository.playbook';
import { forgehubDeleteRepository } from './playbooks/delete-repository.playbook';
import { forgehubListIssues } from './playbooks/list-issues.playbook';
import { forgehubListMyIssues } from './playbooks/list-my-issues.playbook';
import { forgehubListMyRepositories } from './playbooks/list-repositories.playbook';
import { forgehubListStarred } from './playbooks/list-starred.playbook';
import { forgehubOpenIssue } from './playbooks/open-issue.playbook';
import { forgehubReadNotifications } from './playbooks/read-notifications.playbook';
import { forgehubReadRepository } from './playbooks/read-repository.playbook';
import { forgehubStarRepository } from './playbooks/star-repository.playbook';
import { forgehubSite } from './site/site';

/** ForgeHub, the sandbox's simulated developer platform. */
export const forgehub: Integration = {
  slug: 'forgehub',
  provider: forgehubProvider,
  site: forgehubSite,
  playbooks: [
    forgehubListMyRepositories,
    forgehubCreateRepository,
    forgehubOpenIssue,
    forgehubStarRepository,
    forgehubListMyIssues,
    forgehubReadRepository,
    forgehubListStarred,
    forgehubListIssues,
    forgehubReadNotifications,
    forgehubCloseIssue,
    forgehubCommentOnIssue,
    forgehubDeleteRepository,
  ],
};
