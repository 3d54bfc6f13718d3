import type { Request, Response, Router } from 'express';

import { html, type RawHtml } from '../../../../sandbox/kit/html';
import type { Doc, SiteKit } from '../../../../sandbox/kit/site';
import { C } from '../classes';
import { loadPeople, type Message, type Person, personOf } from '../model';
import { avatar, cls, timeTag } from '../ui';
import { h, notFound, text, USERNAME } from './common';
import { type CodeAsk, codeDialog, isStepUpCode, messageStepUps, mustConfirm } from './message-step-up';

interface Conversation {
  other: Person;
  last: Doc<Message>;
  unread: number;
}

function conversations(viewer: string, messages: Doc<Message>[], people: Map<string, Person>): Conversation[] {
  const byOther = new Map<string, Conversation>();
  for (const m of messages) {
    if (m.data.from !== viewer && m.data.to !== viewer) continue;
    const other = m.data.from === viewer ? m.data.to : m.data.from;
    const c = byOther.get(other) ?? { other: personOf(people, other), last: m, unread: 0 };
    if (m.createdAt.getTime() >= c.last.createdAt.getTime()) c.last = m;
    if (m.data.to === viewer && !m.data.read) c.unread++;
    byOther.set(other, c);
  }
  return [...byOther.values()].sort((a, b) => b.last.createdAt.getTime() - a.last.createdAt.getTime());
}

export async function unreadMessages(kit: SiteKit, res: Response): Promise<number> {
  const viewer = kit.user(res).username;
  return (await kit.docs(res).list<Message>('message')).filter((m) => m.data.to === viewer && !m.data.read).length;
}

function page(
  req: Request,
  res: Response,
  kit: SiteKit,
  viewer: string,
  people: Map<string, Person>,
  convs: Conversation[],
  selected: string | null,
  pane: RawHtml,
  status = 200,
) {
  const now = kit.now();
  const contacts = [...people.values()].filter((p) => p.username !== viewer);
  const list = convs.length
    ? html`<ul class="${C.convList}" aria-label="Conversations">${convs.map((c) => {
        const mine = c.last.data.from === viewer;
        return html`<li><a class="${cls('convItem', c.other.username === selected && 'convActive', c.unread > 0 && 'convUnread')}" href="/messaging/${c.other.username}"${c.other.username === selected ? html` aria-current="page"` : ''}>
${avatar(c.other, 'sm')}<div style="min-width:0;flex:1"><div style="display:flex;justify-content:space-between;gap:8px"><span class="${C.postName}">${c.other.name}</span><span class="${cls('muted', 'small')}">${timeTag(c.last.createdAt, now)}</span></div>
<div class="${C.convSnippet}">${mine ? 'You: ' : ''}${c.last.data.text}</div>${c.unread > 0 ? html`<span class="${C.srOnly}">${c.unread} unread</span>` : ''}</div></a></li>`;
      })}</ul>`
    : html`<p class="${C.empty}">No messages yet.</p>`;
  const body = html`<section class="${C.card}" aria-labelledby="messaging-title"><div class="${C.msgLayout}">
<div style="border-right:1px solid #eee"><div class="${C.pageHead}" style="padding:12px 14px;margin:0;border-bottom:1px solid #eee"><h1 class="${C.cardTitle}" style="margin:0" id="messaging-title">Messaging</h1>
<button type="button" class="${cls('btn', 'btnSm', 'dlgOpen')}" aria-haspopup="dialog" aria-controls="new-message">New message</button></div>${list}</div>
${pane}
</div></section>
<div class="${C.dialog}" id="new-message" role="dialog" aria-modal="true" aria-labelledby="new-message-title" hidden>
<div class="${C.dialogHead}"><h2 id="new-message-title">New message</h2><button type="button" class="${C.dialogClose}" aria-label="Dismiss">×</button></div>
<div class="${C.dialogBody}"><label for="picker" class="${C.srOnly}">Type a name</label><input id="picker" class="${C.pickerInput}" type="text" placeholder="Type a name" autocomplete="off" aria-controls="picker-list" autofocus>
<ul class="${C.pickerList}" id="picker-list" aria-label="People">${contacts.map(
    (p) =>
      html`<li><a href="/messaging/${p.username}">${avatar(p, 'sm')}<span><span class="${C.postName}">${p.name}</span><br><span class="${cls('muted', 'small')}">${p.headline}</span></span></a></li>`,
  )}</ul></div></div>`;
  kit.page(
    req,
    res,
    { title: selected ? `${personOf(people, selected).name} | Messaging` : 'Messaging', body, active: 'messaging' },
    status,
  );
}

export function messagingRoutes(router: Router, kit: SiteKit) {
  router.get(
    '/messaging',
    h(async (req, res) => {
      const viewer = kit.user(res).username;
      const docs = kit.docs(res);
      const [people, messages] = await Promise.all([loadPeople(docs), docs.list<Message>('message')]);
      const convs = conversations(viewer, messages, people);
      const pane = html`<div class="${C.empty}" style="align-self:center"><h2 class="${C.cardTitle}">Select a conversation</h2><p>Choose a conversation from the list, or start a new one.</p></div>`;
      page(req, res, kit, viewer, people, convs, null, pane);
    }),
  );

  router.get(
    '/messaging/:username',
    h(async (req, res) => showThread(req, res, kit, String(req.params.username))),
  );

  router.post(
    '/messaging/:username',
    h(async (req, res) => {
      const viewer = kit.user(res).username;
      const username = String(req.params.username);
      const docs = kit.docs(res);
      const [people, messages] = await Promise.all([loadPeople(docs), docs.list<Message>('message')]);
      if (!USERNAME.test(username) || username === viewer || !people.has(username)) {
        return notFound(req, res, kit, 'Conversation not found', 'You can only message people on Orbit.');
      }
      const body = text(req.body?.text, 2000);
      if (!body) {
        kit.flash(res, 'Write a message first.');
        return res.redirect(303, `/messaging/${username}`);
      }
      if (mustConfirm(viewer, username, messages)) {
        // Nothing is sent: the message waits for the code, and only the confirming form can send it.
        const challenge = await messageStepUps(kit).open(res, { to: username, text: body });
        return showThread(req, res, kit, username, { challenge, text: body });
      }
      await docs.insert<Message>('message', { from: viewer, to: username, text: body, read: false });
      res.redirect(303, `/messaging/${username}`);
    }),
  );

  router.post(
    '/messaging/:username/confirm',
    h(async (req, res) => {
      const viewer = kit.user(res).username;
      const username = String(req.params.username);
      const stepUps = messageStepUps(kit);
      const pending = await stepUps.take(res, req.body?.challenge);
      if (!pending || pending.data.to !== username) {
        kit.flash(res, 'That confirmation expired. Send your message again to get a new code.');
        return res.redirect(303, `/messaging/${encodeURIComponent(username)}`);
      }
      if (!isStepUpCode(req.body?.code)) {
        const challenge = await stepUps.again(res, pending);
        if (!challenge) {
          kit.flash(res, 'Too many wrong codes. Your message was not sent; send it again to get a new code.');
          return res.redirect(303, `/messaging/${username}`);
        }
        const error = "That code isn't right. Check the code we sent to your phone and try again.";
        return showThread(req, res, kit, username, { challenge, text: pending.data.text, error }, 422);
      }
      await kit.docs(res).insert<Message>('message', { from: viewer, to: username, text: pending.data.text, read: false });
      res.redirect(303, `/messaging/${username}`);
    }),
  );
}

/** A conversation's page; with `ask`, the message waits for its code (the dialog is open, the text still in the box). */
async function showThread(req: Request, res: Response, kit: SiteKit, username: string, ask?: CodeAsk, status = 200): Promise<void> {
  const viewer = kit.user(res).username;
  const docs = kit.docs(res);
  const [people, messages] = await Promise.all([loadPeople(docs), docs.list<Message>('message')]);
  const other = USERNAME.test(username) && username !== viewer ? people.get(username) : undefined;
  if (!other) return notFound(req, res, kit, 'Conversation not found', 'You can only message people on Orbit.');
  const thread = messages.filter(
    (m) => (m.data.from === viewer && m.data.to === username) || (m.data.from === username && m.data.to === viewer),
  );
  for (const m of thread) {
    if (m.data.to === viewer && !m.data.read) {
      m.data.read = true;
      await docs.update<Message>(m.id, { ...m.data, read: true });
    }
  }
  const now = kit.now();
  const me = personOf(people, viewer);
  const pane = html`<div class="${C.thread}" role="region" aria-label="Conversation with ${other.name}">
<div class="${C.threadHead}">${avatar(other, 'sm')}<div><a class="${C.postName}" href="/in/${other.username}">${other.name}</a><div class="${cls('muted', 'small')}">${other.headline}</div></div></div>
<ol class="${C.threadMsgs}" aria-label="Messages">${
    thread.length
      ? thread.map((m) => {
          const from = m.data.from === viewer ? me : other;
          return html`<li class="${cls('bubble', from === me && 'bubbleMe')}">${avatar(from, 'sm')}<div><span class="${C.postName}">${from.name}</span> <span class="${cls('muted', 'small')}">${timeTag(m.createdAt, now)}</span><p>${m.data.text}</p></div></li>`;
        })
      : html`<li class="${C.empty}">This is the beginning of your conversation with ${other.name}.</li>`
  }</ol>
<form method="post" action="/messaging/${other.username}" class="${C.sendForm}">${kit.csrfField(res)}
<label for="message-text" class="${C.srOnly}">Write a message</label><textarea class="${C.textarea}" id="message-text" name="text" maxlength="2000" required placeholder="Write a message…">${ask?.text ?? ''}</textarea>
<button type="submit" class="${cls('btn', 'btnPrimary', 'btnSm')}">Send</button></form></div>
${ask ? codeDialog(kit.csrfField(res), other, ask) : ''}`;
  page(req, res, kit, viewer, people, conversations(viewer, messages, people), other.username, pane, status);
}
