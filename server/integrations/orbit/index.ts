import type { Integration } from '../integration';
import { orbitProvider } from './orbit.provider';
import { orbitCommentOnPost } from './playbooks/comment-on-post.playbook';
import { orbitCreatePost } from './playbooks/create-post.playbook';
import { orbitFollowPerson, orbitUnfollowPerson } from './playbooks/follow-person.playbook';
import { orbitLikePost } from './playbooks/like-post.playbook';
import { orbitListFollowing } from './playbooks/list-following.playbook';
import { orbitReadMyFeed } from './playbooks/read-feed.playbook';
import { orbitReadMessages } from './playbooks/read-messages.playbook';
import { orbitReadMyProfile } from './playbooks/read-my-profile.playbook';
import { orbitReadNotifications } from './playbooks/read-notifications.playbook';
import { orbitReadPosts } from './playbooks/read-posts.playbook';
import { orbitRepostPost } from './playbooks/repost-post.playbook';
import { orbitSendMessage } from './playbooks/send-message.playbook';
import { orbitSite } from './site/site';

/** Orbit, the sandbox's simulated social network. */
export const orbit: Integration = {
  slug: 'orbit',
  provider: orbitProvider,
  site: orbitSite,
  playbooks: [
    orbitReadMyProfile,
    orbitCreatePost,
    orbitReadMyFeed,
    orbitSendMessage,
    orbitReadPosts,
    orbitReadNotifications,
    orbitReadMessages,
    orbitFollowPerson,
    orbitUnfollowPerson,
    orbitLikePost,
    orbitCommentOnPost,
    orbitRepostPost,
    orbitListFollowing,
  ],
};
