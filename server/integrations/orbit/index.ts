import type { Integration } from '../integration';
import { orbitProvider } from './orbit.provider';
import { orbitCreatePost } from './playbooks/create-post.playbook';
import { orbitReadMyFeed } from './playbooks/read-feed.playbook';
import { orbitReadMyProfile } from './playbooks/read-my-profile.playbook';
import { orbitSendMessage } from './playbooks/send-message.playbook';
import { orbitSite } from './site/site';

/** Orbit, the sandbox's simulated social network. */
export const orbit: Integration = {
  slug: 'orbit',
  provider: orbitProvider,
  site: orbitSite,
  playbooks: [orbitReadMyProfile, orbitCreatePost, orbitReadMyFeed, orbitSendMessage],
};
