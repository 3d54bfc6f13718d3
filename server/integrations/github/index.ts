import type { Integration } from '../integration';
import { githubProvider } from './github.provider';

/** GitHub (production): a declaration with its login recipe; no playbooks yet, so the agent plans with the model. */
export const github: Integration = {
  slug: 'github',
  provider: () => githubProvider,
  playbooks: [],
};
