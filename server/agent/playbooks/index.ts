import { forgehubCreateRepository } from './forgehub-create-repository.playbook';
import { forgehubListMyRepositories } from './forgehub-list-repositories.playbook';
import { forgehubOpenIssue } from './forgehub-open-issue.playbook';
import { forgehubStarRepository } from './forgehub-star-repository.playbook';
import { orbitCreatePost } from './orbit-create-post.playbook';
import { orbitReadMyProfile } from './orbit-profile.playbook';
import { orbitReadMyFeed } from './orbit-read-feed.playbook';
import { orbitSendMessage } from './orbit-send-message.playbook';
import { type Playbook, PlaybookRegistry } from './registry';

export * from './registry';
export { PlaybookStrategy } from './strategy';
export { shapeToFormat, parseCount } from './shape';

/** Every built-in playbook. Site owners add theirs here (one file per playbook, next to this one). */
export const BUILT_IN_PLAYBOOKS: Playbook<unknown>[] = [
  orbitReadMyProfile,
  orbitCreatePost,
  orbitReadMyFeed,
  orbitSendMessage,
  forgehubListMyRepositories,
  forgehubCreateRepository,
  forgehubOpenIssue,
  forgehubStarRepository,
];

export function defaultPlaybookRegistry(): PlaybookRegistry {
  const registry = new PlaybookRegistry();
  for (const p of BUILT_IN_PLAYBOOKS) registry.register(p);
  return registry;
}
