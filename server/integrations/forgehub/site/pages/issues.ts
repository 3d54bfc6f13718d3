import type { Request, Response, Router } from 'express';

import { html, type RawHtml } from '../../../../sandbox/kit/html';
import type { Doc, SiteKit } from '../../../../sandbox/kit/site';
import { findTestUser } from '../../../../sandbox/test-users';
import { type Comment, type Forge, fullName, type Issue, type IssueState, type NoticeAction, type NoticeReason, type Repo } from '../model';
import { ago, avatar, cx, h, icon, notFound, plural, rich, wantsJson } from '../ui';
import { loadRepo, repoHead } from './repo';

const PAGE = 10;
const TITLE_MAX = 256;
const BODY_MAX = 65_536;

/** Who answers issues on the seeded organizations' repositories. */
const MAINTAINERS: Record<string, string> = { openfoundry: 'mlopez', 'kestrel-labs': 'amara-o' };
const REPLIES = [
  'Thanks for opening this, @{user}! Could you tell us which version you are on and share the exact steps?',
  'Thanks @{user}, I can reproduce this. Adding it to the next milestone.',
  'Good idea, @{user}. We would welcome a pull request if you want to take a stab at it!',
];

const labelClass = (l: string) => cx(`fh-lbl-${l.replace(/\s+/g, '-')}`);
const labels = (ls: string[]) => ls.map((l) => html` <span class="${cx('fh-label')} ${labelClass(l)}">${l}</span>`);

function issueItem(r: Repo, d: Doc<Issue>, comments: number, now: Date): RawHtml {
  const i = d.data;
  return html`<li class="${cx('fh-issue-item')}">
  ${i.state === 'open' ? icon('issue', cx('fh-io')) : icon('closed', cx('fh-ic'))}
  <div><a class="${cx('fh-issue-title')}" href="${`/${r.owner}/${r.name}/issues/${i.number}`}">${i.title}</a>${labels(i.labels)}
  <div class="${cx('fh-issue-meta')}">#${i.number} ${i.state === 'open' ? html`opened ${ago(d.createdAt, now)}` : html`closed ${ago(i.closedAt ?? d.updatedAt, now)}`} by <a href="${`/${i.author}`}" class="${cx('fh-muted')}">${i.author}</a></div></div>
  ${comments ? html`<a class="${cx('fh-issue-right')}" href="${`/${r.owner}/${r.name}/issues/${i.number}`}" aria-label="${plural(comments, 'comment')}">${icon('comment')}${comments}</a>` : ''}
</li>`;
}

/** The issue composer: a title and a contenteditable body with a small Markdown toolbar. */
function composer(
  kit: SiteKit,
  res: Response,
  r: Repo,
  form: { title: string; body: string },
  errors: { title?: string; body?: string },
  idp: string,
): RawHtml {
  const titleErrId = cx(`${idp}-title-err`);
  return html`<form method="post" action="${`/${r.owner}/${r.name}/issues`}" class="${cx('fh-issue-form')}" novalidate>
  ${kit.csrfField(res)}
  <div class="${cx('fh-field')}">
    <label class="${cx('fh-field-label')}" for="${cx(`${idp}-title`)}">Title</label>
    <input id="${cx(`${idp}-title`)}" class="${cx('fh-input')}" name="title" value="${form.title}" maxlength="${TITLE_MAX}" autocomplete="off" required autofocus${errors.title ? html` aria-invalid="true" aria-describedby="${titleErrId}"` : ''}>
    <p id="${titleErrId}" class="${cx('fh-error')} ${cx('fh-title-err')}"${errors.title ? '' : html` hidden`}>${errors.title ?? 'Title can’t be blank.'}</p>
  </div>
  <div class="${cx('fh-field')}">
    <span class="${cx('fh-field-label')}" id="${cx(`${idp}-body-label`)}">Description</span>
    <div class="${cx('fh-editor')}">
      <div role="toolbar" aria-label="Text formatting" class="${cx('fh-toolbar')}">
        <button type="button" aria-label="Bold" title="Bold (Ctrl+B)">B</button>
        <button type="button" aria-label="Italic" title="Italic (Ctrl+I)"><i>I</i></button>
        <button type="button" aria-label="Code" title="Code (Ctrl+E)">&lt;&gt;</button>
        <button type="button" aria-label="Bulleted list" title="Bulleted list">•≡</button>
        <button type="button" aria-label="Mention" title="Mention someone">@</button>
      </div>
      <div class="${cx('fh-ed')}" contenteditable="true" role="textbox" aria-multiline="true" aria-labelledby="${cx(`${idp}-body-label`)}" aria-placeholder="Describe the problem or the idea. Markdown is supported." spellcheck="true"></div>
      <input type="hidden" name="body" value="${form.body}">
    </div>
    ${errors.body ? html`<p class="${cx('fh-error')}">${errors.body}</p>` : ''}
    <p class="${cx('fh-hint')}">Styling with Markdown is supported: **bold**, _italic_, \`code\`, - lists, @mentions.</p>
  </div>
  <div class="${cx('fh-actions')}">
    ${idp === 'dlg' ? html`<button type="button" class="${cx('fh-btn')} ${cx('fh-dlg-close')}">Cancel</button>` : html`<a class="${cx('fh-btn')}" href="${`/${r.owner}/${r.name}/issues`}">Cancel</a>`}
    <button type="submit" class="${cx('fh-btn')} ${cx('fh-btn-primary')}">Submit new issue</button>
  </div>
</form>`;
}

/** Tells everyone involved in an issue (author, repository owner, commenters, stargazers), except whoever acted. */
async function notifyInvolved(forge: Forge, repo: Repo, issue: Issue, action: NoticeAction, actor: string) {
  const who = new Map<string, NoticeReason>();
  const add = (u: string, reason: NoticeReason) => {
    if (u !== actor && !who.has(u)) who.set(u, reason);
  };
  add(issue.author, 'author');
  add(repo.owner, 'owner');
  for (const c of await forge.comments(repo, issue.number)) if (!c.data.event) add(c.data.author, 'comment');
  for (const s of await forge.stars()) if (s.data.repo === `${repo.owner}/${repo.name}`.toLowerCase()) add(s.data.username, 'subscribed');
  for (const [recipient, reason] of who) {
    await forge.notify(recipient, { actor, action, reason, repo: fullName(repo), number: issue.number, subject: issue.title });
  }
}

export function issueRoutes(router: Router, kit: SiteKit) {
  // ---------- list: Open / Closed, first page server-rendered, "Load more" fetches the next ones ----------
  router.get(
    '/:owner/:repo/issues',
    h(async (req, res) => {
      const loaded = await loadRepo(kit, req, res);
      if (!loaded) return;
      const { forge, repo } = loaded;
      const r = repo.data;
      const base = `/${r.owner}/${r.name}`;
      const now = kit.now();
      const state: IssueState = req.query.state === 'closed' ? 'closed' : 'open';
      const q = typeof req.query.q === 'string' ? req.query.q.trim().slice(0, 100) : '';
      const all = await forge.issues(r);
      const counts = await forge.commentCounts(r);
      const matching = all.filter((d) => !q || d.data.title.toLowerCase().includes(q.toLowerCase()));
      const list = matching.filter((d) => d.data.state === state);
      const offset = Math.max(0, Number.parseInt(String(req.query.offset ?? '0'), 10) || 0);
      const slice = list.slice(offset, offset + PAGE);
      const shown = offset + slice.length;
      const summary = `Showing ${shown} of ${plural(list.length, `${state} issue`)}`;
      const nextUrl =
        shown < list.length
          ? `${base}/issues?${new URLSearchParams({ state, ...(q ? { q } : {}), offset: String(shown) }).toString()}`
          : null;
      const items = slice.map((d) => issueItem(r, d, counts.get(d.data.number) ?? 0, now));

      if (wantsJson(req)) {
        res.json({ html: html`${items}`.value, next: nextUrl, summary });
        return;
      }
      const openCount = matching.filter((d) => d.data.state === 'open').length;
      const closedCount = matching.length - openCount;
      const tabHref = (s: IssueState) => `${base}/issues?${new URLSearchParams({ state: s, ...(q ? { q } : {}) }).toString()}`;

      kit.page(req, res, {
        title: `Issues · ${fullName(r)}`,
        body: html`${await repoHead(kit, req, res, forge, repo, 'issues')}
<div class="${cx('fh-searchrow')}" style="margin-bottom:16px">
  <form method="get" action="${`${base}/issues`}" role="search" style="display:flex;gap:8px;flex:1">
    <input type="hidden" name="state" value="${state}">
    <label class="${cx('fh-sr')}" for="${cx('fh-issue-q')}">Search issues</label>
    <input id="${cx('fh-issue-q')}" class="${cx('fh-input')}" type="search" name="q" value="${q}" placeholder="Search all issues" autocomplete="off">
  </form>
  <button type="button" class="${cx('fh-btn')} ${cx('fh-btn-primary')} ${cx('fh-dlg-open')}" aria-haspopup="dialog" aria-controls="${cx('fh-new-issue-dialog')}">New issue</button>
</div>
<div class="${cx('fh-box')}">
  <div class="${cx('fh-box-head')}">
    <nav class="${cx('fh-states')}" aria-label="Issue state">
      <a href="${tabHref('open')}"${state === 'open' ? html` aria-current="page"` : ''}>${icon('issue')}${openCount} Open</a>
      <a href="${tabHref('closed')}"${state === 'closed' ? html` aria-current="page"` : ''}>${icon('check')}${closedCount} Closed</a>
    </nav>
  </div>
  ${
    list.length
      ? html`<ul id="${cx('fh-issue-list')}" class="${cx('fh-list')}" aria-label="${`${state === 'open' ? 'Open' : 'Closed'} issues`}">${items}</ul>
<div class="${cx('fh-more')}"><p class="${cx('fh-muted')} ${cx('fh-more-count')}" aria-live="polite" style="margin:0">${summary}</p>
${nextUrl ? html`<button type="button" class="${cx('fh-btn')} ${cx('fh-more-btn')}" aria-controls="${cx('fh-issue-list')}" data-next="${nextUrl}">Load more</button>` : ''}</div>`
      : html`<div class="${cx('fh-blank')}">${icon('issue', cx('fh-blank-icon'))}<h3>${q ? 'No results matched your search.' : state === 'open' ? 'There aren’t any open issues.' : 'There aren’t any closed issues.'}</h3></div>`
  }
</div>
<dialog id="${cx('fh-new-issue-dialog')}" class="${cx('fh-dialog')}" aria-labelledby="${cx('fh-new-issue-h')}">
  <div class="${cx('fh-dialog-head')}"><h2 id="${cx('fh-new-issue-h')}">New issue in ${fullName(r)}</h2><button type="button" class="${cx('fh-dialog-x')} ${cx('fh-dlg-close')}" aria-label="Close dialog">×</button></div>
  <div class="${cx('fh-dialog-body')}">${composer(kit, res, r, { title: '', body: '' }, {}, 'dlg')}</div>
</dialog>`,
      });
    }),
  );

  const newIssuePage = async (
    req: Request,
    res: Response,
    forge: Forge,
    repo: Doc<Repo>,
    form: { title: string; body: string },
    errors: { title?: string; body?: string },
    status = 200,
  ) => {
    kit.page(
      req,
      res,
      {
        title: `New issue · ${fullName(repo.data)}`,
        body: html`${await repoHead(kit, req, res, forge, repo, 'issues')}
<div class="${cx('fh-form')}" style="max-width:880px">
  <h1 style="font-size:20px;margin:0 0 16px">Create new issue</h1>
  ${Object.keys(errors).length ? html`<div class="${cx('fh-error-summary')}" role="alert">${Object.values(errors).join(' ')}</div>` : ''}
  ${composer(kit, res, repo.data, form, errors, 'page')}
</div>`,
      },
      status,
    );
  };

  router.get(
    '/:owner/:repo/issues/new',
    h(async (req, res) => {
      const loaded = await loadRepo(kit, req, res);
      if (!loaded) return;
      await newIssuePage(req, res, loaded.forge, loaded.repo, { title: '', body: '' }, {});
    }),
  );

  router.post(
    '/:owner/:repo/issues',
    h(async (req, res) => {
      const loaded = await loadRepo(kit, req, res);
      if (!loaded) return;
      const { forge, repo } = loaded;
      const r = repo.data;
      const title = String(req.body?.title ?? '').trim();
      const body = String(req.body?.body ?? '')
        .replace(/\r\n?/g, '\n')
        .trim();
      const errors: { title?: string; body?: string } = {};
      if (!title) errors.title = 'Title can’t be blank.';
      else if (title.length > TITLE_MAX) errors.title = `Title is too long (maximum is ${TITLE_MAX} characters).`;
      if (body.length > BODY_MAX) errors.body = 'Description is too long.';
      if (Object.keys(errors).length)
        return newIssuePage(req, res, forge, repo, { title: title.slice(0, TITLE_MAX), body: body.slice(0, BODY_MAX) }, errors, 422);

      const issue = await forge.createIssue(repo, title, body);
      const n = issue.data.number;
      await forge.record({ actor: forge.me, type: 'opened_issue', repo: fullName(r), number: n, title });
      await notifyInvolved(forge, r, issue.data, 'opened', forge.me);

      // On the seeded projects somebody is around: a maintainer answers, and the author is notified.
      const maintainer = MAINTAINERS[r.owner] ?? r.owner;
      if (!findTestUser(r.owner) && r.visibility === 'public' && maintainer !== forge.me) {
        const reply = REPLIES[n % REPLIES.length]!.replace('{user}', forge.me);
        await forge.addComment({ repo: issue.data.repo, number: n, author: maintainer, body: reply });
        await notifyInvolved(forge, r, issue.data, 'commented', maintainer);
      }
      kit.flash(res, `Issue #${n} created.`);
      res.redirect(303, `/${r.owner}/${r.name}/issues/${n}`);
    }),
  );

  // ---------- one issue: timeline, comment, close (with confirmation), reopen ----------
  const loadIssue = async (req: Request, res: Response) => {
    const loaded = await loadRepo(kit, req, res);
    if (!loaded) return null;
    const issue = await loaded.forge.issue(loaded.repo.data, Number(req.params.number));
    if (!issue) {
      kit.page(req, res, { title: 'Page not found', body: notFound('issue') }, 404);
      return null;
    }
    return { ...loaded, issue };
  };
  const canManage = (forge: Forge, r: Repo, i: Issue) => forge.me.toLowerCase() === r.owner.toLowerCase() || forge.me === i.author;

  const issuePage = async (
    req: Request,
    res: Response,
    forge: Forge,
    repo: Doc<Repo>,
    issue: Doc<Issue>,
    commentError?: string,
    draft = '',
  ) => {
    const r = repo.data;
    const i = issue.data;
    const base = `/${r.owner}/${r.name}/issues/${i.number}`;
    const now = kit.now();
    const timeline = await forge.comments(r, i.number);
    const commentCount = timeline.filter((c) => !c.data.event).length;
    const manage = canManage(forge, r, i);
    const names = new Map<string, string>();
    for (const u of new Set([i.author, ...timeline.map((c) => c.data.author)])) names.set(u, await forge.displayName(u));

    const commentBox = (
      id: string,
      author: string,
      when: Date,
      body: string,
      isAuthor: boolean,
    ) => html`<div class="${cx('fh-comment')}" id="${id}">
  <a href="${`/${author}`}" aria-hidden="true" tabindex="-1">${avatar(author, 40, names.get(author))}</a>
  <article class="${cx('fh-comment-box')}" aria-label="${`Comment by ${author}`}">
    <header class="${cx('fh-comment-head')}"><a href="${`/${author}`}">${author}</a> commented ${ago(when, now)}${isAuthor ? html` <span class="${cx('fh-label')} ${cx('fh-vis')}">Author</span>` : ''}</header>
    <div class="${cx('fh-comment-body')}">${body.trim() ? rich(body) : html`<p class="${cx('fh-muted')}"><em>No description provided.</em></p>`}</div>
  </article>
</div>`;
    const eventLine = (c: Doc<Comment>) =>
      html`<div class="${cx('fh-event')}"><span class="${cx('fh-event-icon')}" style="${`background:${c.data.event === 'closed' ? '#8250df' : '#1f883d'}`}">${icon(c.data.event === 'closed' ? 'closed' : 'issue')}</span><span><a href="${`/${c.data.author}`}">${c.data.author}</a> ${c.data.event === 'closed' ? 'closed this as completed' : 'reopened this'} ${ago(c.createdAt, now)}</span></div>`;

    kit.page(
      req,
      res,
      {
        title: `${i.title} · Issue #${i.number} · ${fullName(r)}`,
        body: html`${await repoHead(kit, req, res, forge, repo, 'issues')}
<h1 class="${cx('fh-issue-h1')}">${i.title} <span>#${i.number}</span></h1>
<div class="${cx('fh-issue-sub')}">
  <span class="${cx('fh-state')} ${i.state === 'open' ? cx('fh-state-open') : cx('fh-state-closed')}">${icon(i.state === 'open' ? 'issue' : 'closed')}${i.state === 'open' ? 'Open' : 'Closed'}</span>
  <span><a href="${`/${i.author}`}"><strong>${i.author}</strong></a> opened this issue ${ago(issue.createdAt, now)} · ${plural(commentCount, 'comment')}</span>
  <span>${labels(i.labels)}</span>
</div>
<div class="${cx('fh-timeline')}">
  ${commentBox(cx(`issue-${i.number}`), i.author, issue.createdAt, i.body, false)}
  ${timeline.map((c) => (c.data.event ? eventLine(c) : commentBox(`comment-${c.id}`, c.data.author, c.createdAt, c.data.body, c.data.author === i.author)))}
</div>
<div class="${cx('fh-comment')}">
  ${avatar(forge.me, 40, forge.viewer.displayName)}
  <div style="flex:1">
    <form method="post" action="${`${base}/comments`}" class="${cx('fh-comment-box')}" style="padding:12px">
      ${kit.csrfField(res)}
      <label class="${cx('fh-field-label')}" for="${cx('fh-comment-body')}">Add a comment</label>
      <textarea id="${cx('fh-comment-body')}" class="${cx('fh-input')}" name="body" placeholder="Use Markdown to format your comment" maxlength="${BODY_MAX}"${commentError ? html` aria-invalid="true" aria-describedby="${cx('fh-comment-err')}"` : ''}>${draft}</textarea>
      ${commentError ? html`<p id="${cx('fh-comment-err')}" class="${cx('fh-error')}" role="alert">${commentError}</p>` : ''}
      <div class="${cx('fh-actions')}">
        ${manage && i.state === 'open' ? html`<button type="button" class="${cx('fh-btn')} ${cx('fh-dlg-open')}" aria-haspopup="dialog" aria-controls="${cx('fh-close-dialog')}">${icon('closed', cx('fh-ic'))}Close issue</button>` : ''}
        <button type="submit" class="${cx('fh-btn')} ${cx('fh-btn-primary')}">Comment</button>
      </div>
    </form>
    ${
      manage && i.state === 'closed'
        ? html`<form method="post" action="${`${base}/reopen`}" class="${cx('fh-actions')}">${kit.csrfField(res)}<button type="submit" class="${cx('fh-btn')}">${icon('issue', cx('fh-io'))}Reopen issue</button></form>`
        : ''
    }
  </div>
</div>
${
  manage && i.state === 'open'
    ? html`<dialog id="${cx('fh-close-dialog')}" class="${cx('fh-dialog')} ${cx('fh-dialog-sm')}" aria-labelledby="${cx('fh-close-h')}" aria-describedby="${cx('fh-close-d')}">
  <div class="${cx('fh-dialog-head')}"><h2 id="${cx('fh-close-h')}">Close issue #${i.number}?</h2><button type="button" class="${cx('fh-dialog-x')} ${cx('fh-dlg-close')}" aria-label="Close dialog">×</button></div>
  <div class="${cx('fh-dialog-body')}"><p id="${cx('fh-close-d')}" style="margin:0">“${i.title}” will be marked as completed. People can still comment, and it can be reopened later.</p></div>
  <form method="post" action="${`${base}/close`}" class="${cx('fh-dialog-foot')}">
    ${kit.csrfField(res)}
    <button type="button" class="${cx('fh-btn')} ${cx('fh-dlg-close')}" autofocus>Cancel</button>
    <button type="submit" class="${cx('fh-btn')} ${cx('fh-btn-danger')}">Close issue</button>
  </form>
</dialog>`
    : ''
}`,
      },
      commentError ? 422 : 200,
    );
  };

  router.get(
    '/:owner/:repo/issues/:number(\\d+)',
    h(async (req, res) => {
      const l = await loadIssue(req, res);
      if (l) await issuePage(req, res, l.forge, l.repo, l.issue);
    }),
  );

  router.post(
    '/:owner/:repo/issues/:number(\\d+)/comments',
    h(async (req, res) => {
      const l = await loadIssue(req, res);
      if (!l) return;
      const { forge, repo, issue } = l;
      const body = String(req.body?.body ?? '')
        .replace(/\r\n?/g, '\n')
        .trim();
      if (!body) return issuePage(req, res, forge, repo, issue, 'Comment can’t be blank.');
      if (body.length > BODY_MAX) return issuePage(req, res, forge, repo, issue, 'Comment is too long.', body.slice(0, BODY_MAX));
      const c = await forge.addComment({ repo: issue.data.repo, number: issue.data.number, author: forge.me, body });
      await forge.record({
        actor: forge.me,
        type: 'commented',
        repo: fullName(repo.data),
        number: issue.data.number,
        title: issue.data.title,
      });
      await notifyInvolved(forge, repo.data, issue.data, 'commented', forge.me);
      res.redirect(303, `/${repo.data.owner}/${repo.data.name}/issues/${issue.data.number}#comment-${c.id}`);
    }),
  );

  for (const action of ['close', 'reopen'] as const) {
    router.post(
      `/:owner/:repo/issues/:number(\\d+)/${action}`,
      h(async (req, res) => {
        const l = await loadIssue(req, res);
        if (!l) return;
        const { forge, repo, issue } = l;
        const r = repo.data;
        const i = issue.data;
        const url = `/${r.owner}/${r.name}/issues/${i.number}`;
        if (!canManage(forge, r, i)) {
          kit.page(
            req,
            res,
            {
              title: 'Forbidden',
              body: html`<div class="${cx('fh-404')}"><h1>403</h1><p>Only the author of the issue and the owner of ${fullName(r)} can ${action} it.</p><p><a href="${url}">Back to the issue</a></p></div>`,
            },
            403,
          );
          return;
        }
        const target: IssueState = action === 'close' ? 'closed' : 'open';
        if (i.state !== target) {
          const now = kit.now().toISOString();
          const next: Issue = action === 'close' ? { ...i, state: 'closed', closedAt: now, closedBy: forge.me } : { ...i, state: 'open' };
          if (action === 'reopen') {
            delete next.closedAt;
            delete next.closedBy;
          }
          await forge.setIssue(issue, next);
          await forge.addComment({
            repo: i.repo,
            number: i.number,
            author: forge.me,
            body: '',
            event: action === 'close' ? 'closed' : 'reopened',
          });
          await forge.record({
            actor: forge.me,
            type: action === 'close' ? 'closed_issue' : 'reopened_issue',
            repo: fullName(r),
            number: i.number,
            title: i.title,
          });
          await notifyInvolved(forge, r, i, action === 'close' ? 'closed' : 'reopened', forge.me);
        }
        kit.flash(res, action === 'close' ? `Issue #${i.number} closed.` : `Issue #${i.number} reopened.`);
        res.redirect(303, url);
      }),
    );
  }
}
