import type { Integration } from '../integration';
import { linkedinProvider } from './linkedin.provider';

/** LinkedIn (production): a declaration with its login recipe; no playbooks yet, so the agent plans with the model. */
export const linkedin: Integration = {
  slug: 'linkedin',
  provider: () => linkedinProvider,
  playbooks: [],
};
