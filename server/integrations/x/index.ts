import type { Integration } from '../integration';
import { xProvider } from './x.provider';

/** X (production): a declaration with its login recipe; no playbooks yet, so the agent plans with the model. */
export const x: Integration = {
  slug: 'x',
  provider: () => xProvider,
  playbooks: [],
};
