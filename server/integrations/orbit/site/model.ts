import { randomInt } from 'node:crypto';

import type { Doc, SiteDocs } from '../../../sandbox/kit/site';
import { TEST_USERS } from '../../../sandbox/test-users';
import { TEST_USER_PROFILES } from './test-user-profiles';

/**
 * Orbit's documents (type aliases, so they fit the kit's Record<string, unknown> storage). Posts are addressed by `key` (a LinkedIn-style activity number), not by the storage
 * id: seed documents are created per tenant, and keys let them reference each other before ids exist.
 */
export type Visibility = 'public' | 'connections';

export interface Person {
  username: string;
  name: string;
  headline: string;
  location: string;
  about: string;
  /** Followers / following outside the tenant's follow documents (the rest of the network). */
  followers: number;
  following: number;
  color: string;
  /** Follows you back when you follow them (so following someone produces a notification). */
  followsBack?: boolean;
  /** Likes the comments people leave on their posts. */
  likesComments?: boolean;
}

export type Post = {
  key: string;
  author: string;
  text: string;
  visibility: Visibility;
  /** Usernames that liked the post in this tenant; baseLikes counts the rest of the network. */
  likes: string[];
  baseLikes: number;
  baseReposts: number;
  baseComments?: number;
  /** Set on a repost: the key of the reposted post (text is then empty). */
  repostOf?: string;
};

export type Comment = {
  postKey: string;
  author: string;
  text: string;
  likedByAuthor?: boolean;
};

export type Follow = {
  follower: string;
  followee: string;
};

export type Message = {
  from: string;
  to: string;
  text: string;
  read: boolean;
};

export type NotificationType = 'like' | 'comment' | 'follow' | 'repost' | 'view' | 'message';

export type Notification = {
  to: string;
  actor: string;
  type: NotificationType;
  text: string;
  link: string;
  read: boolean;
};

export const newPostKey = () => `72${String(randomInt(1e8, 1e9 - 1))}${String(randomInt(1e8, 1e9 - 1))}`;

const newestFirst = <T>(a: Doc<T>, b: Doc<T>) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1);

/** Everyone who can appear on Orbit: the seeded people plus the sandbox test users. */
export async function loadPeople(docs: SiteDocs): Promise<Map<string, Person>> {
  const people = new Map<string, Person>();
  const seeded = (await docs.list<Person>('person')).map((d) => d.data).sort((a, b) => a.name.localeCompare(b.name, 'en'));
  for (const p of seeded) people.set(p.username, p);
  for (const u of TEST_USERS) {
    const p = TEST_USER_PROFILES[u.username];
    people.set(u.username, {
      username: u.username,
      name: u.displayName,
      headline: p?.headline ?? 'Orbit member',
      location: p?.location ?? '',
      about: p?.about ?? '',
      followers: p?.followers ?? 0,
      following: p?.following ?? 0,
      color: p?.color ?? '#64748b',
    });
  }
  return people;
}

export function personOf(people: Map<string, Person>, username: string): Person {
  return (
    people.get(username) ?? {
      username,
      name: username,
      headline: '',
      location: '',
      about: '',
      followers: 0,
      following: 0,
      color: '#94a3b8',
    }
  );
}

/** The social graph and content as one viewer sees it. */
export class World {
  readonly byKey = new Map<string, Doc<Post>>();
  readonly following: Set<string>;

  constructor(
    readonly viewer: string,
    readonly people: Map<string, Person>,
    /** Newest first. */
    readonly posts: Doc<Post>[],
    readonly comments: Doc<Comment>[],
    readonly follows: Doc<Follow>[],
  ) {
    for (const p of posts) this.byKey.set(p.data.key, p);
    this.following = new Set(follows.filter((f) => f.data.follower === viewer).map((f) => f.data.followee));
  }

  static async load(docs: SiteDocs, viewer: string): Promise<World> {
    const [people, posts, comments, follows] = await Promise.all([
      loadPeople(docs),
      docs.list<Post>('post'),
      docs.list<Comment>('comment'),
      docs.list<Follow>('follow'),
    ]);
    return new World(viewer, people, posts.sort(newestFirst), comments, follows);
  }

  person(username: string) {
    return personOf(this.people, username);
  }

  /** Connections-only posts are shown to their author and to the author's followers. */
  canSee(post: Doc<Post>): boolean {
    const p = post.data;
    if (p.repostOf) {
      const original = this.byKey.get(p.repostOf);
      return !!original && this.canSee(original);
    }
    return p.visibility === 'public' || p.author === this.viewer || this.following.has(p.author);
  }

  visiblePosts(author?: string): Doc<Post>[] {
    return this.posts.filter((p) => (!author || p.data.author === author) && this.canSee(p));
  }

  likeCount(p: Doc<Post>) {
    return p.data.baseLikes + p.data.likes.length;
  }
  likedByViewer(p: Doc<Post>) {
    return p.data.likes.includes(this.viewer);
  }
  repostsOf(key: string) {
    return this.posts.filter((p) => p.data.repostOf === key);
  }
  repostCount(p: Doc<Post>) {
    return p.data.baseReposts + this.repostsOf(p.data.key).length;
  }
  repostedByViewer(p: Doc<Post>) {
    return this.repostsOf(p.data.key).some((r) => r.data.author === this.viewer);
  }
  commentsOf(key: string) {
    return this.comments.filter((c) => c.data.postKey === key);
  }
  commentCount(p: Doc<Post>) {
    return (p.data.baseComments ?? 0) + this.commentsOf(p.data.key).length;
  }

  followerCount(username: string) {
    return this.person(username).followers + this.follows.filter((f) => f.data.followee === username).length;
  }
  followingCount(username: string) {
    return this.person(username).following + this.follows.filter((f) => f.data.follower === username).length;
  }
  isFollowing(follower: string, followee: string) {
    return this.follows.some((f) => f.data.follower === follower && f.data.followee === followee);
  }
}

export async function notify(docs: SiteDocs, n: Omit<Notification, 'read'>) {
  if (n.to === n.actor) return;
  await docs.insert<Notification>('notification', { ...n, read: false });
}
