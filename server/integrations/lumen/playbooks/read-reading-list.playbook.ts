import { z } from 'zod';

import { definePlaybook } from '../../../agent/playbooks/define-playbook';
import { openPath, waitBudget } from '../../../agent/playbooks/site-helpers';

/**
 * Lumen: the signed-in user's reading list. Follows ../site/site.ts (/library, "Your reading list": the list named
 * "Reading list", one item per article with its title (h2) and "author · N min read").
 */
const paramsSchema = z.object({}).strict();
export type LumenReadReadingListParams = z.infer<typeof paramsSchema>;

export const lumenReadReadingList = definePlaybook({
  providerSlug: 'lumen',
  name: 'lumen.read-reading-list',
  description: "Reads the signed-in Lumen user's reading list: each article's title, author and reading time in minutes.",
  examples: ['Read my reading list', 'What is on my reading list?', 'List the articles I saved on Lumen', 'Show my Lumen library'],
  writes: false,
  resultFields: {
    articles: [{ title: 'string', author: 'string', minutes: 'integer - reading time' }],
    count: 'integer - how many were listed',
  },
  parameters: paramsSchema,
  async run(ctx) {
    const { page } = ctx;
    await openPath(ctx, '/library', 'your reading list (/library)');
    const items = await ctx.step('extract', "list 'Reading list'", async () => {
      await page.getByRole('heading', { name: 'Your reading list', level: 1 }).waitFor({ state: 'visible', timeout: waitBudget(ctx) });
      const rows = page.getByRole('list', { name: 'Reading list' }).locator(':scope > li');
      const out: { title: string; author: string; minutes: number }[] = [];
      for (let i = 0; i < Math.min(await rows.count(), 100); i++) {
        const row = rows.nth(i);
        const [author, time] = (await row.locator('p').first().innerText()).split('·').map((s) => s.trim());
        out.push({ title: (await row.locator('h2').innerText()).trim(), author, minutes: Number(/\d+/.exec(time ?? '')?.[0] ?? 0) });
      }
      return out;
    });
    return ctx.fitList({
      items,
      itemAliases: { title: ['name', 'headline'], author: ['by', 'writer'], minutes: ['readingTime', 'duration'] },
      extras: { count: items.length },
      extraAliases: { count: ['total', 'length', 'size', 'returned'] },
    });
  },
});
