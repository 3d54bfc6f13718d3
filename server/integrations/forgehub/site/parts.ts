import type { Response } from 'express';

import { html, type RawHtml } from '../../../sandbox/kit/html';
import type { Doc, SiteKit } from '../../../sandbox/kit/site';
import { Forge, fullName, type Repo } from './model';
import { ago, cx, icon, lang } from './ui';

export const forgeFor = (kit: SiteKit, res: Response) => new Forge(kit.docs(res), kit.user(res));

export function visLabel(r: Repo): RawHtml {
  return html`<span class="${cx('fh-label')} ${cx('fh-vis')}">${r.visibility === 'private' ? 'Private' : 'Public'}</span>`;
}

/** A repository in a list (search results, stars, profiles). */
export function repoRow(d: Doc<Repo>, stars: number, now: Date, action?: RawHtml): RawHtml {
  const r = d.data;
  return html`<li class="${cx('fh-repo-item')}">
  <div>
    <h3>${icon(r.visibility === 'private' ? 'lock' : 'repo', cx('fh-muted'))}<a href="${`/${r.owner}/${r.name}`}">${fullName(r)}</a>${visLabel(r)}</h3>
    ${r.description ? html`<p class="${cx('fh-repo-desc')}">${r.description}</p>` : ''}
    ${r.topics.length ? html`<div>${r.topics.map((t) => html`<a class="${cx('fh-label')} ${cx('fh-topic')}" href="${`/repositories?q=${encodeURIComponent(t)}`}">${t}</a>`)}</div>` : ''}
    <div class="${cx('fh-repo-meta')}">${lang(r.language)}<span>${icon('star')} ${stars.toLocaleString('en-US')}</span>${r.forks ? html`<span>${icon('fork')} ${r.forks}</span>` : ''}<span>Updated ${ago(d.updatedAt, now)}</span></div>
  </div>
  ${action ?? ''}
</li>`;
}

/** The Star / Unstar control with its count; a plain form, so it works with or without JavaScript. */
export function starControl(r: Repo, starred: boolean, count: number, csrf: RawHtml, next: string): RawHtml {
  const base = `/${r.owner}/${r.name}`;
  return html`<form method="post" action="${`${base}/${starred ? 'unstar' : 'star'}`}" class="${cx('fh-star-form')}">
  ${csrf}<input type="hidden" name="next" value="${next}">
  <button type="submit" class="${cx('fh-btn')} ${starred ? cx('fh-starred') : ''}" aria-pressed="${starred ? 'true' : 'false'}">${icon(starred ? 'starFill' : 'star')}${starred ? 'Unstar' : 'Star'}</button>
  <span class="${cx('fh-star-count')}">${count.toLocaleString('en-US')}<span class="${cx('fh-sr')}"> stars</span></span>
</form>`;
}
