import type { Doc, SiteDocs, SiteUser } from '../../../sandbox/kit/site';
import { findTestUser } from '../../../sandbox/test-users';

/**
 * ForgeHub's documents. References between documents use natural keys (a repository's lower-cased
 * "owner/name", an issue's repository + number) rather than document ids: document ids are global, so
 * seed documents cannot carry fixed ids that every tenant would share.
 */
export type Visibility = 'public' | 'private';

export type Person = {
  username: string;
  name: string;
  bio: string;
  location?: string;
  company?: string;
  website?: string;
  isOrg?: boolean;
};

export type Repo = {
  owner: string;
  name: string;
  description: string;
  visibility: Visibility;
  language?: string;
  /** Stars given before the sandbox existed (people outside the simulation); real stars are counted on top. */
  seedStars: number;
  forks: number;
  topics: string[];
  readme?: string;
};

export type Star = { repo: string; username: string };

export type IssueState = 'open' | 'closed';
export type Issue = {
  repo: string;
  number: number;
  title: string;
  body: string;
  author: string;
  state: IssueState;
  labels: string[];
  closedAt?: string;
  closedBy?: string;
};

/** A comment, or an event in an issue's timeline ("closed this"). */
export type Comment = { repo: string; number: number; author: string; body: string; event?: 'closed' | 'reopened' };

export type Follow = { follower: string; target: string };

/** Why the recipient gets it: they wrote the issue, own the repository, took part, watch it, or were mentioned. */
export type NoticeReason = 'author' | 'owner' | 'comment' | 'subscribed' | 'mention';
export type NoticeAction = 'opened' | 'commented' | 'closed' | 'reopened';
export type Notice = {
  recipient: string;
  actor: string;
  action: NoticeAction;
  /** Display name of the repository ("owner/name"). */
  repo: string;
  number?: number;
  subject: string;
  reason: NoticeReason;
  unread: boolean;
};

export type ActivityType = 'created_repo' | 'opened_issue' | 'commented' | 'closed_issue' | 'reopened_issue' | 'starred';
export type Activity = { actor: string; type: ActivityType; repo: string; number?: number; title?: string };

export const repoKey = (owner: string, name: string) => `${owner}/${name}`.toLowerCase();
export const fullName = (r: Repo) => `${r.owner}/${r.name}`;
export const keyOf = (r: Repo) => repoKey(r.owner, r.name);
export const ts = (d: Date | string) => new Date(d).getTime();
export const newestFirst = <T>(a: Doc<T>, b: Doc<T>) => ts(b.createdAt) - ts(a.createdAt);

/** Per-request view of a tenant's ForgeHub for one signed-in user; lists are loaded once per request. */
export class Forge {
  private cache = new Map<string, Promise<Doc<unknown>[]>>();

  constructor(
    readonly docs: SiteDocs,
    readonly viewer: SiteUser,
  ) {}

  private all<T>(kind: string): Promise<Doc<T>[]> {
    let p = this.cache.get(kind);
    if (!p) {
      p = this.docs.list(kind);
      this.cache.set(kind, p);
    }
    return p as Promise<Doc<T>[]>;
  }
  private invalidate(kind: string) {
    this.cache.delete(kind);
  }

  get me() {
    return this.viewer.username;
  }

  /** Whether the viewer owns the repository (only its owner sees its settings and may delete it). */
  owns(r: Repo) {
    return r.owner.toLowerCase() === this.me.toLowerCase();
  }

  canSee(r: Repo) {
    return r.visibility === 'public' || r.owner.toLowerCase() === this.me.toLowerCase();
  }

  async repos(): Promise<Doc<Repo>[]> {
    return (await this.all<Repo>('repo')).filter((d) => this.canSee(d.data));
  }

  /** Visible repositories, most recently updated first. */
  async reposByUpdate(): Promise<Doc<Repo>[]> {
    return (await this.repos()).sort((a, b) => ts(b.updatedAt) - ts(a.updatedAt) || a.data.name.localeCompare(b.data.name));
  }

  async repo(owner: string, name: string): Promise<Doc<Repo> | null> {
    const key = repoKey(owner, name);
    return (await this.repos()).find((d) => keyOf(d.data) === key) ?? null;
  }

  async ownedBy(username: string): Promise<Doc<Repo>[]> {
    const u = username.toLowerCase();
    return (await this.reposByUpdate()).filter((d) => d.data.owner.toLowerCase() === u);
  }

  async nameTaken(owner: string, name: string): Promise<boolean> {
    const key = repoKey(owner, name);
    return (await this.all<Repo>('repo')).some((d) => keyOf(d.data) === key);
  }

  async createRepo(data: Repo): Promise<Doc<Repo>> {
    this.invalidate('repo');
    return this.docs.insert('repo', data);
  }

  /**
   * Deletes a repository with what is only its own (issues, their comments, stars). Activity and notifications about it
   * stay, as on GitHub (the activity is no longer shown: only visible repositories' is). The repository goes first, so
   * a deletion cut short leaves nothing anyone can see.
   */
  async deleteRepo(doc: Doc<Repo>) {
    const key = keyOf(doc.data);
    await this.docs.remove(doc.id);
    this.invalidate('repo');
    for (const kind of ['issue', 'comment', 'star'] as const) {
      for (const d of await this.all<{ repo: string }>(kind)) if (d.data.repo === key) await this.docs.remove(d.id);
      this.invalidate(kind);
    }
  }

  /** Marks a repository as recently updated (it moves up in lists). */
  async touchRepo(doc: Doc<Repo>) {
    this.invalidate('repo');
    await this.docs.update(doc.id, doc.data);
  }

  // ---------- stars ----------
  async stars(): Promise<Doc<Star>[]> {
    return this.all<Star>('star');
  }
  async starCount(r: Repo): Promise<number> {
    const key = keyOf(r);
    return r.seedStars + (await this.stars()).filter((s) => s.data.repo === key).length;
  }
  async starOf(r: Repo, username = this.me): Promise<Doc<Star> | undefined> {
    const key = keyOf(r);
    return (await this.stars()).find((s) => s.data.repo === key && s.data.username === username);
  }
  /** Repositories a user starred (that the viewer may see), most recent star first. */
  async starredBy(username: string): Promise<{ star: Doc<Star>; repo: Doc<Repo> }[]> {
    const repos = new Map((await this.repos()).map((d) => [keyOf(d.data), d]));
    return (await this.stars())
      .filter((s) => s.data.username === username && repos.has(s.data.repo))
      .sort(newestFirst)
      .map((star) => ({ star, repo: repos.get(star.data.repo)! }));
  }
  async star(r: Repo) {
    if (await this.starOf(r)) return;
    this.invalidate('star');
    await this.docs.insert('star', { repo: keyOf(r), username: this.me } satisfies Star);
  }
  async unstar(r: Repo) {
    const s = await this.starOf(r);
    if (!s) return;
    this.invalidate('star');
    await this.docs.remove(s.id);
  }

  // ---------- issues ----------
  async issues(r: Repo): Promise<Doc<Issue>[]> {
    const key = keyOf(r);
    return (await this.all<Issue>('issue')).filter((d) => d.data.repo === key).sort((a, b) => b.data.number - a.data.number);
  }
  async issue(r: Repo, number: number): Promise<Doc<Issue> | null> {
    return (await this.issues(r)).find((d) => d.data.number === number) ?? null;
  }
  async createIssue(r: Doc<Repo>, title: string, body: string): Promise<Doc<Issue>> {
    const existing = await this.issues(r.data);
    const number = existing.reduce((m, d) => Math.max(m, d.data.number), 0) + 1;
    this.invalidate('issue');
    const doc = await this.docs.insert('issue', {
      repo: keyOf(r.data),
      number,
      title,
      body,
      author: this.me,
      state: 'open',
      labels: [],
    } satisfies Issue);
    await this.touchRepo(r);
    return doc;
  }
  async setIssue(doc: Doc<Issue>, data: Issue) {
    this.invalidate('issue');
    await this.docs.update(doc.id, data);
  }

  async comments(r: Repo, number: number): Promise<Doc<Comment>[]> {
    const key = keyOf(r);
    return (await this.all<Comment>('comment')).filter((d) => d.data.repo === key && d.data.number === number);
  }
  async commentCounts(r: Repo): Promise<Map<number, number>> {
    const key = keyOf(r);
    const counts = new Map<number, number>();
    for (const c of await this.all<Comment>('comment')) {
      if (c.data.repo === key && !c.data.event) counts.set(c.data.number, (counts.get(c.data.number) ?? 0) + 1);
    }
    return counts;
  }
  async addComment(data: Comment): Promise<Doc<Comment>> {
    this.invalidate('comment');
    return this.docs.insert('comment', data);
  }

  // ---------- people ----------
  async people(): Promise<Doc<Person>[]> {
    return this.all<Person>('person');
  }
  /** A profile: a seeded person, or a sandbox test user (who may have no person document). */
  async person(username: string): Promise<Person | null> {
    const u = username.toLowerCase();
    const doc = (await this.people()).find((d) => d.data.username.toLowerCase() === u);
    if (doc) return doc.data;
    const test = findTestUser(username);
    return test ? { username: test.username, name: test.displayName, bio: '' } : null;
  }
  async displayName(username: string): Promise<string> {
    return (await this.person(username))?.name ?? username;
  }

  async follows(): Promise<Doc<Follow>[]> {
    return this.all<Follow>('follow');
  }
  async followers(username: string) {
    return (await this.follows()).filter((f) => f.data.target === username);
  }
  async following(username: string) {
    return (await this.follows()).filter((f) => f.data.follower === username);
  }
  async follow(target: string) {
    if ((await this.followers(target)).some((f) => f.data.follower === this.me)) return;
    this.invalidate('follow');
    await this.docs.insert('follow', { follower: this.me, target } satisfies Follow);
  }
  async unfollow(target: string) {
    const f = (await this.followers(target)).find((x) => x.data.follower === this.me);
    if (!f) return;
    this.invalidate('follow');
    await this.docs.remove(f.id);
  }

  // ---------- notifications & activity ----------
  async notices(): Promise<Doc<Notice>[]> {
    return (await this.all<Notice>('notice')).filter((n) => n.data.recipient === this.me).sort(newestFirst);
  }
  /**
   * Notifies someone. Only the sandbox test users can ever sign in and read notifications, so seeded
   * people's inboxes are not stored.
   */
  async notify(recipient: string, n: Omit<Notice, 'recipient' | 'unread'>) {
    if (!findTestUser(recipient)) return;
    this.invalidate('notice');
    await this.docs.insert('notice', { ...n, recipient, unread: true } satisfies Notice);
  }
  async markRead(doc: Doc<Notice>) {
    this.invalidate('notice');
    await this.docs.update(doc.id, { ...doc.data, unread: false });
  }

  async activity(): Promise<Doc<Activity>[]> {
    const visible = new Set((await this.repos()).map((d) => keyOf(d.data)));
    return (await this.all<Activity>('activity')).filter((a) => visible.has(a.data.repo.toLowerCase())).sort(newestFirst);
  }
  async record(a: Activity) {
    this.invalidate('activity');
    await this.docs.insert('activity', a);
  }
}
