import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import { WriteRefused } from '../../../agent/playbooks/registry';
import { clickToSend, collapse, openPath, pathOf, until, waitBudget, withParamAliases } from '../../../agent/playbooks/site-helpers';
import { type OrbitPostCard, POST_FIELD_ALIASES, readPostCards } from './post-cards';

/**
 * Orbit: publish a post as the signed-in user. Follows ../site/pages/home.ts: the home feed's
 * "Start a post" button opens the "Create a post" dialog, whose "Who can see your post?" button opens a
 * listbox (Public / Connections), whose contenteditable textbox takes the text, and whose "Post" button
 * submits. The result is the new post as the feed shows it afterwards (a card that was not there before,
 * with the text), so it reports what Orbit published, not what was asked.
 */
const VISIBILITY_WORDS: Record<string, 'public' | 'connections'> = {
  public: 'public',
  everyone: 'public',
  anyone: 'public',
  connections: 'connections',
  'connections only': 'connections',
  'connections-only': 'connections',
  followers: 'connections',
  'followers only': 'connections',
};

const paramsSchema = withParamAliases(
  { text: ['content', 'body', 'message', 'post', 'postText', 'caption'], visibility: ['audience', 'privacy', 'whoCanSee', 'shareWith'] },
  z
    .object({
      text: z.string().trim().min(1, 'the post needs some text').max(3000, 'Orbit posts hold at most 3000 characters'),
      visibility: z
        .preprocess((v) => (typeof v === 'string' ? (VISIBILITY_WORDS[v.trim().toLowerCase()] ?? v) : v), z.enum(['public', 'connections']))
        .optional(),
    })
    .strict(),
);

export type OrbitCreatePostParams = z.infer<typeof paramsSchema>;

const LABEL = { public: 'Public', connections: 'Connections' } as const;

export const orbitCreatePost = definePlaybook({
  providerSlug: 'orbit',
  name: 'orbit.create-post',
  description:
    'Publishes a post on Orbit as the signed-in user (parameters: text, visibility public|connections) and returns it as the feed shows it.',
  examples: [
    'Create a post',
    "Create a post saying 'We are hiring!'",
    'Write a post saying hello to everyone',
    'Publish a new post on Orbit',
    'Share an update with my network',
    'Share a quick post with my connections',
    'Compose a short post about our launch',
    'Post this on Orbit',
    'Please post the following',
    'Post "Happy Friday, everyone!" to my feed',
    'Write a new status update',
    'Publish a post for my connections only',
  ],
  writes: true,
  fromSentence: { text: 'text' },
  resultFields: {
    posted: 'boolean - whether the post was published',
    postId: 'string',
    url: 'url',
    text: 'string',
    visibility: 'string - public or connections',
    author: 'string',
    authorUsername: 'string',
    postedAt: 'datetime? - when it was published',
  },
  parameters: paramsSchema,
  async run(ctx) {
    const { page, params } = ctx;
    const visibility = params.visibility ?? 'public';
    const origin = new URL(ctx.provider.homeUrl).origin;
    const trigger = page.getByRole('button', { name: 'Start a post' });
    if (pathOf(page) !== '/' || (await trigger.count()) === 0) await openPath(ctx, '/', 'home feed (/)');

    const before = await ctx.step('extract', 'posts in the feed before posting', async () => {
      await trigger.waitFor({ state: 'visible', timeout: waitBudget(ctx) });
      return new Set((await readPostCards(page.locator('main article'), origin)).map((c) => c.postId));
    });

    const dialog = page.getByRole('dialog', { name: 'Create a post' });
    await ctx.step('click', "button 'Start a post'", async () => {
      await trigger.click();
      await dialog.waitFor({ state: 'visible', timeout: waitBudget(ctx) });
    });

    await ctx.step('select', `'${LABEL[visibility]}' in listbox 'Who can see your post?'`, async () => {
      const chooser = dialog.getByRole('button', { name: /who can see your post/i });
      if (collapse(await chooser.innerText()).startsWith(LABEL[visibility])) return;
      await chooser.click();
      const listbox = dialog.getByRole('listbox');
      await listbox.waitFor({ state: 'visible', timeout: waitBudget(ctx) });
      await listbox.getByRole('option', { name: new RegExp(`^${LABEL[visibility]}\\b`) }).click();
      await until(
        `the audience to read '${LABEL[visibility]}'`,
        async () => collapse(await chooser.innerText()).startsWith(LABEL[visibility]),
        waitBudget(ctx, 5000),
      );
    });

    await ctx.step('type', "textbox 'Text editor for creating content'", async () => {
      const editor = dialog.getByRole('textbox', { name: 'Text editor for creating content' });
      await editor.fill(params.text);
      const typed = collapse(await editor.innerText());
      if (typed !== collapse(params.text)) throw new Error(`the editor holds "${typed.slice(0, 80)}" instead of the text`);
    });

    const card = await ctx.step(
      'click',
      "button 'Post'",
      async () => {
        const submit = dialog.getByRole('button', { name: 'Post', exact: true });
        await until("button 'Post' to be enabled", () => submit.isEnabled(), waitBudget(ctx, 5000));
        await clickToSend(submit);
        const wanted = collapse(params.text);
        const found = await until<OrbitPostCard | { error: string }>(
          'the new post to appear in the feed',
          async () => {
            if (pathOf(page) !== '/') return undefined;
            const refused = (await page.getByRole('status').allInnerTexts()).find((t) => /empty|went wrong|could not|try again/i.test(t));
            if (refused) return { error: collapse(refused).replace(/\s*×$/, '') };
            const cards = await readPostCards(page.locator('main article'), origin);
            return cards.find((c) => !before.has(c.postId) && !c.repostedBy && collapse(c.text) === wanted);
          },
          waitBudget(ctx),
        );
        if ('error' in found) throw new WriteRefused(`Orbit did not publish the post: ${found.error}`);
        if (found.visibility && found.visibility !== visibility)
          throw new Error(`the post was published to ${found.visibility}, not ${visibility}`);
        return found;
      },
      { writes: true },
    );

    const fields = { ...card, posted: true };
    return ctx.fit(fields, { ...POST_FIELD_ALIASES, posted: ['created', 'published', 'success', 'ok', 'done'] });
  },
});
