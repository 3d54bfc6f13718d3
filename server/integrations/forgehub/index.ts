import type { Integration } from '../integration';
import { forgehubProvider } from './forgehub.provider';
import { forgehubCreateRepository } from './playbooks/create-repository.playbook';
import { forgehubListMyRepositories } from './playbooks/list-repositories.playbook';
import { forgehubOpenIssue } from './playbooks/open-issue.playbook';
import { forgehubStarRepository } from './playbooks/star-repository.playbook';
import { forgehubSite } from './site/site';

/** ForgeHub, the sandbox's simulated developer platform. */
export const forgehub: Integration = {
  slug: 'forgehub',
  provider: forgehubProvider,
  site: forgehubSite,
  playbooks: [forgehubListMyRepositories, forgehubCreateRepository, forgehubOpenIssue, forgehubStarRepository],
};
