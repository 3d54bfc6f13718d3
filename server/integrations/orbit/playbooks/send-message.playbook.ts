import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import { WriteRefused } from '../../../agent/playbooks/registry';
import {
  askPerson,
  clickToSend,
  collapse,
  fold,
  openPath,
  pathOf,
  siteUrl,
  until,
  waitBudget,
  withParamAliases,
} from '../../../agent/playbooks/site-helpers';
import { evaluateAllIsolated, evaluateOneIsolated } from '../../../browser/locator-reads';

/**
 * Orbit: send a direct message. Follows ../site/pages/messaging.ts: /messaging has a
 * "New message" dialog listing everyone (list "People", filtered by the "Type a name" box); a person's
 * thread (/messaging/<username>) holds the "Messages" list and the "Write a message" box with its "Send"
 * button. The recipient may be given by username or display name (accents and case ignored; a unique
 * partial name is accepted, an ambiguous one is an error that names the candidates). The result is the
 * message as the thread shows it after sending.
 *
 * Orbit may hold a first message to someone new until its user confirms it with a code sent to their phone (the
 * "Confirm it's you" dialog; sandbox: user_stepup). Only the person has that code: the run pauses for them
 * (ctx.needsUser, reason CODE), they enter it in the live view, and the playbook confirms the message went out.
 */
const paramsSchema = withParamAliases(
  {
    recipient: ['to', 'username', 'user', 'person', 'name', 'recipientName', 'contact'],
    text: ['message', 'body', 'content', 'messageText'],
  },
  z
    .object({
      recipient: z.string().trim().min(1, 'say who gets the message').max(100),
      text: z.string().trim().min(1, 'the message needs some text').max(2000, 'Orbit messages hold at most 2000 characters'),
    })
    .strict(),
);

export type OrbitSendMessageParams = z.infer<typeof paramsSchema>;

interface Person {
  username: string;
  name: string;
}

/** Who `wanted` means among the people Orbit lists: exact username, exact name, then a unique partial name. */
export function resolveRecipient(wanted: string, people: Person[]): Person {
  const w = fold(wanted);
  const exact = people.filter((p) => fold(p.username) === w || fold(p.name) === w);
  if (exact.length === 1) return exact[0]!;
  const words = w.split(' ');
  const partial =
    exact.length > 1
      ? exact
      : people.filter((p) => words.every((part) => fold(p.name).split(' ').includes(part) || fold(p.username).includes(part)));
  if (partial.length === 1) return partial[0]!;
  if (partial.length === 0) throw new Error(`nobody called "${wanted}" can be messaged on Orbit`);
  throw new Error(`"${wanted}" could be ${partial.map((p) => `${p.name} (${p.username})`).join(', ')}; give the username`);
}

const FIELD_ALIASES = {
  recipient: ['to', 'recipientName', 'name', 'person', 'contact'],
  recipientUsername: ['username', 'toUsername', 'handle', 'login'],
  text: ['message', 'body', 'content', 'messageText'],
  sentAt: ['date', 'time', 'timestamp', 'createdAt', 'datetime', 'when'],
  from: ['sender', 'author', 'senderName'],
  conversationUrl: ['url', 'threadUrl', 'link', 'conversation'],
  sent: ['delivered', 'success', 'ok', 'done', 'sentSuccessfully'],
};

export const orbitSendMessage = definePlaybook({
  providerSlug: 'orbit',
  name: 'orbit.send-message',
  description:
    'Sends a direct message on Orbit (parameters: recipient as username or display name, text) and returns it as the conversation shows it.',
  examples: [
    'Send a message to Priya Nair',
    "Send a message to Priya Nair saying 'Running late, sorry!'",
    'Write a direct message to jonas-berg',
    'Write a message to Priya about my new post',
    'Message Priya saying thanks',
    'DM @priya-nair',
    'Send Priya Nair a quick note',
    'Reply to the message from Priya',
    'Ping Marcus Webb and tell him the demo moved',
    'Text lena-fischer that I will call later',
  ],
  writes: true,
  fromSentence: { recipient: 'person', text: 'text' },
  resultFields: {
    sent: 'boolean - whether the message was sent',
    recipient: 'string - display name',
    recipientUsername: 'string',
    text: 'string',
    sentAt: 'datetime? - when it was sent',
    from: 'string - the sender as the conversation shows them',
    conversationUrl: 'url',
  },
  parameters: paramsSchema,
  async run(ctx) {
    const { page, params } = ctx;
    if (!pathOf(page).startsWith('/messaging')) await openPath(ctx, '/messaging', 'messaging (/messaging)');

    const dialog = page.getByRole('dialog', { name: 'New message' });
    await ctx.step('click', "button 'New message'", async () => {
      await page.getByRole('button', { name: 'New message' }).click();
      await dialog.waitFor({ state: 'visible', timeout: waitBudget(ctx) });
    });
    const person = await ctx.step('extract', `recipient "${params.recipient}" in list 'People'`, async () => {
      const people: Person[] = await evaluateAllIsolated(
        dialog.getByRole('list', { name: 'People' }).locator('a[href^="/messaging/"]'),
        (links) =>
          links.map((l) => ({
            username: decodeURIComponent((l.getAttribute('href') ?? '').split('/')[2] ?? ''),
            name: (
              (l.querySelector('span span') as HTMLElement | null)?.innerText ??
              (l as HTMLElement).innerText.split('\n')[0] ??
              ''
            ).trim(),
          })),
      );
      return resolveRecipient(params.recipient, people);
    });

    await ctx.step('type', `textbox 'Type a name' (${person.name})`, async () => {
      await dialog.getByRole('textbox', { name: 'Type a name' }).fill(person.name);
      await dialog.locator(`a[href="/messaging/${encodeURIComponent(person.username)}"]`).click();
      await page.waitForURL((u) => decodeURIComponent(u.pathname) === `/messaging/${person.username}`, { timeout: waitBudget(ctx) });
    });

    const thread = page.getByRole('region', { name: `Conversation with ${person.name}` });
    const bubbles = thread
      .getByRole('list', { name: 'Messages' })
      .locator('li')
      .filter({ has: page.locator('time') });
    const before = await ctx.step('extract', `messages with ${person.name} before sending`, async () => {
      await thread.waitFor({ state: 'visible', timeout: waitBudget(ctx) });
      return bubbles.count();
    });

    await ctx.step('type', "textbox 'Write a message'", async () => {
      const box = thread.getByRole('textbox', { name: 'Write a message' });
      await box.fill(params.text);
      if ((await box.inputValue()) !== params.text) throw new Error('the message box does not hold the text');
    });

    // The newest message of the conversation, checked to be the one just sent.
    const readSent = async () => {
      const read = await evaluateOneIsolated(bubbles.last(), (li) => ({
        from: ((li.querySelector('div > span') as HTMLElement | null)?.innerText ?? '').trim(),
        text: (li.querySelector('p') as HTMLElement | null)?.innerText ?? '',
        sentAt: li.querySelector('time')?.getAttribute('datetime') ?? null,
      }));
      if (collapse(read.text) !== collapse(params.text))
        throw new Error(`the newest message in the conversation reads "${collapse(read.text).slice(0, 80)}", not the text sent`);
      if (read.from === person.name) throw new Error(`the newest message in the conversation is from ${person.name}`);
      return read;
    };
    // Orbit may ask its user to confirm a first message to someone new with a code sent to their phone.
    const codeDialog = page.getByRole('dialog', { name: "Confirm it's you" });

    const clicked = await ctx.step(
      'click',
      "button 'Send'",
      async () => {
        await clickToSend(thread.getByRole('button', { name: 'Send', exact: true }));
        const outcome = await until(
          "the message to appear in the conversation (or Orbit's “Confirm it's you”)",
          async () => ((await bubbles.count()) > before ? 'sent' : (await codeDialog.isVisible()) ? 'code' : false),
          waitBudget(ctx),
        );
        return outcome === 'sent' ? { sent: await readSent() } : { sent: null };
      },
      // Asked for a code, Orbit has sent nothing yet: the message goes out once the person confirms it (below).
      { writes: (r) => r.sent !== null },
    );

    let sent = clicked.sent;
    if (!sent) {
      await askPerson(ctx, "code asked by Orbit (Confirm it's you)", {
        reason: 'CODE',
        message:
          `Orbit wants to confirm it's you before your first message to ${person.name}. ` +
          "Enter the code Orbit sent to your phone in the “Confirm it's you” box, then press Confirm.",
        done: async () => !(await codeDialog.isVisible()) && (await bubbles.count()) > before,
      });
      sent = await ctx.step(
        'extract',
        'the message, sent once the code was confirmed',
        async () => {
          await until(
            'Orbit to send the message after the code',
            async () => !(await codeDialog.isVisible()) && (await bubbles.count()) > before,
            waitBudget(ctx, 5000),
          ).catch(async (err: unknown) => {
            // Still asking: the code was not (or not rightly) entered, and Orbit sent nothing.
            if (await codeDialog.isVisible().catch(() => false))
              throw new WriteRefused("Orbit did not send the message: it still asks for the code (“Confirm it's you”)");
            throw err;
          });
          return readSent();
        },
        { writes: true },
      );
    }

    const fields = {
      recipient: person.name,
      recipientUsername: person.username,
      text: sent.text.trim(),
      sentAt: sent.sentAt,
      from: sent.from,
      conversationUrl: siteUrl(ctx, `/messaging/${encodeURIComponent(person.username)}`),
      sent: true,
    };
    return ctx.fit(fields, FIELD_ALIASES);
  },
});
