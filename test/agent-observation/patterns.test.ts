import fs from 'node:fs';
import path from 'node:path';

import type { Page } from 'playwright-core';

import { executeTool } from '../../server/agent/tools';
import { el, observe, openPage, type Rig, startRig, stopRig, toolContext } from './observation-rig';

/**
 * The patterns of issue 24, each a small page of test/fixtures/realistic/site/patterns/ (served as they are):
 * every element a person can click is listed — icons with only a (delegated) click listener, named by the best
 * hint there is and marked name-from=… — with the state that changes what a click does (a tree's folders
 * expanded or collapsed), a script's suggestion list as options, a calendar's slots as cells, an untied <label>
 * naming its field, a textarea told apart from a one-line field, CSS ::before/::after text read. And a click on
 * each by the observation's index does what the page does for a person.
 */
const FIXTURES = path.join(__dirname, '..', 'fixtures', 'realistic', 'site', 'patterns');

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
  for (const f of fs.readdirSync(FIXTURES)) rig.serve(`/${f}`, fs.readFileSync(path.join(FIXTURES, f), 'utf8'));
}, 60_000);
afterAll(() => stopRig(rig));

const log = (page: Page) => page.locator('#log').textContent();

async function click(page: Page, role: string, name: string) {
  const now = await observe(rig, page);
  return executeTool('click', { index: el(now.s, role, name).index }, toolContext(rig, page, now.s));
}

describe('nameless clickables', () => {
  it('lists icons with only a listener of their own or of a list above them, named by data attributes, icon, class', async () => {
    const { context, page } = await openPage(rig, '/inbox.html');
    try {
      const { s, text } = await observe(rig, page);
      const body = text.split('\n\n')[1]!.replace(/^\[\d+\] /gm, '');
      expect(body).toBe(
        [
          "button 'refresh' name-from=data",
          "button 'compose' name-from=data",
          "button 'archive all' name-from=class",
          '# Inbox',
          'Ada Lovelace',
          'Engine notes',
          "button 'star' name-from=class",
          "button 'trash' name-from=class",
          'Alan Turing',
          'Lunch on Friday?',
          "button 'star' name-from=class",
          "button 'trash' name-from=class",
          '## Engine notes',
          'The analytical engine weaves algebraic patterns.',
          "button 'reply' name-from=icon",
          "button 'share' name-from=icon",
          "button 'forward' name-from=icon",
        ].join('\n'),
      );
      expect(s.elements.find((e) => e.name === 'reply')).toMatchObject({ nameFrom: 'icon', tag: 'span' });

      // Alan's trash icon, by its place after his line, as a person picks it
      const trash = s.elements.filter((e) => e.name === 'trash');
      await executeTool('click', { index: trash[1]!.index }, toolContext(rig, page, s));
      expect(await log(page)).toBe('deleted 2');
      expect((await observe(rig, page)).text).not.toContain('Alan Turing');
      for (const [name, logged] of [
        ['refresh', 'refreshed'],
        ['compose', 'compose'],
        ['archive all', 'archived all'],
        ['star', 'starred 1'],
        ['reply', 'reply'],
        ['share', 'share'],
        ['forward', 'forward'],
      ]) {
        await click(page, 'button', name!);
        expect(await log(page)).toBe(logged);
      }
    } finally {
      await context.close();
    }
  });

  it('names each by the best hint: class words (hashed ones left out), background or image file, SVG data-icon, href, title, description, nearby text', async () => {
    const { context, page } = await openPage(rig, '/icons.html');
    try {
      const { s, text } = await observe(rig, page);
      const hinted = [
        ["button 'thumbs up' name-from=class", 'a1'],
        ["button 'heart' name-from=icon", 'a2'],
        ["button 'share alt' name-from=icon", 'a3'],
        ["button 'bell' name-from=icon", 'a4'],
        ["link 'profile' name-from=href", 'a5'],
        ["button 'Bookmark this post'", 'a6'],
        ["button 'Report abuse' name-from=data", 'a7'],
        ["button 'Pin to profile' name-from=nearby", 'a8'],
      ];
      expect(text.split('\n\n')[1]!.replace(/^\[\d+\] /gm, '')).toBe(
        ["# Ada's post", 'The engine can weave patterns.', ...hinted.map(([line]) => line), 'Pin to profile'].join('\n'),
      );
      // the backdrop (a listener, a pointer, no name, the width of the page) is not a control
      expect(s.elements).toHaveLength(8);
      for (const [i, [, id]] of hinted.entries()) {
        const now = await observe(rig, page);
        await executeTool('click', { index: now.s.elements[i]!.index }, toolContext(rig, page, now.s));
        expect(await log(page)).toBe(id);
      }
    } finally {
      await context.close();
    }
  });

  it('lists a grid of empty slots as cells named by their headers, and a calendar of listener-only days', async () => {
    const { context, page } = await openPage(rig, '/slots.html');
    try {
      const { s, text } = await observe(rig, page);
      expect(text).toMatch(
        /^09:00\n\[\d+\] gridcell 'Mon 09:00 free' name-from=headers\n\[\d+\] gridcell 'Wed 09:00 free' name-from=headers\n10:00\n/m,
      );
      // the days a person can pick; the weekday headings (no pointer, no listener) are text
      expect(s.elements.filter((e) => e.role === 'button').map((e) => e.name)).toEqual(Array.from({ length: 14 }, (_, i) => String(i + 1)));
      expect(text).toContain('Mo\nTu\nWe');
      await click(page, 'gridcell', 'Tue 10:00 free');
      expect(await log(page)).toBe('booked Tue 10:00');
      await click(page, 'button', '12');
      expect(await log(page)).toBe('picked 2026-03-12');
    } finally {
      await context.close();
    }
  });
});

describe('state and options', () => {
  it("shows a tree's folders expanded or collapsed (with and without ARIA), lists their expanders, and a click opens one", async () => {
    const { context, page } = await openPage(rig, '/tree.html');
    try {
      const { text } = await observe(rig, page);
      const body = text.split('\n\n')[1]!.replace(/^\[\d+\] /gm, '');
      expect(body).toBe(
        [
          '# My files',
          "button 'twisty Projects' name-from=nearby collapsed",
          "button 'Projects' collapsed",
          "button 'twisty Photos' name-from=nearby expanded",
          "button 'Photos' expanded",
          "button 'cat.jpg'",
          "button 'notes.md'",
          '## Settings',
          "treeitem 'General' expanded",
          "treeitem 'Language'",
          "treeitem 'Privacy' collapsed",
        ].join('\n'),
      );
      await click(page, 'button', 'twisty Projects');
      const after = (await observe(rig, page)).text;
      expect(after).toMatch(
        /button 'Projects' expanded\n\[\d+\] button 'plan.txt'\n\[\d+\] button 'twisty Archive' name-from=nearby collapsed/,
      );
      await click(page, 'button', 'plan.txt');
      expect(await log(page)).toBe('opened plan.txt');
    } finally {
      await context.close();
    }
  });

  it("lists the expander icon a tree item's link holds (a listener alone, off screen too), and a click on it opens the item", async () => {
    const { context, page } = await openPage(rig, '/link-tree.html');
    try {
      const { s, text } = await observe(rig, page);
      // the tree is below the fold: the icon is found all the same
      expect(text).toMatch(/treeitem 'About' collapsed\n\[\d+\] button 'arrow About' name-from=nearby$/);
      expect(el(s, 'button', 'arrow About').tag).toBe('span');
      await click(page, 'button', 'arrow About');
      expect((await observe(rig, page)).text).toMatch(
        /treeitem 'About' expanded( focused)?\n\[\d+\] button 'arrow About' name-from=nearby\n\[\d+\] treeitem 'History'$/,
      );
      await click(page, 'treeitem', 'History');
      expect(await log(page)).toBe('showing History');
    } finally {
      await context.close();
    }
  });

  it("names a treegrid's rows by their cells, shows which are expanded (roving tabindex -1 too), and lists the links in them", async () => {
    const { context, page } = await openPage(rig, '/treegrid.html');
    try {
      const { text } = await observe(rig, page);
      const body = text.split('\n\n')[1]!.replace(/^\[\d+\] /gm, '');
      expect(body).toContain(
        [
          "row 'Quarterly numbers ada@example.test' expanded",
          "link 'ada@example.test'",
          're: Quarterly numbers',
          "link 'bob@example.test'",
          "row 'Team lunch cy@example.test' collapsed",
          "link 'cy@example.test'",
        ].join('\n'),
      );
      expect(body).not.toContain('di@example.test');
    } finally {
      await context.close();
    }
  });

  it("lists a script's suggestions under a field as options, and a click on one picks it (mousedown handlers, close on blur)", async () => {
    const { context, page } = await openPage(rig, '/autocomplete.html');
    try {
      let now = await observe(rig, page);
      expect(now.s.elements.filter((e) => e.role === 'option')).toEqual([]);
      await executeTool('type', { index: el(now.s, 'textbox', 'City').index, text: 'Pa' }, toolContext(rig, page, now.s));
      now = await observe(rig, page);
      expect(now.text).toMatch(
        /textbox 'City' value='Pa' focused\n\[\d+\] option 'Paris'\n\[\d+\] option 'Parma'\n\[\d+\] option 'Pasadena'\n/,
      );
      await executeTool('click', { index: el(now.s, 'option', 'Parma').index }, toolContext(rig, page, now.s));
      expect(await log(page)).toBe('city Parma');
      expect(await page.locator('#city').inputValue()).toBe('Parma');

      // the other opens on focus with every choice (divs with listeners of their own) and closes on blur
      now = await observe(rig, page);
      await executeTool('click', { index: el(now.s, 'textbox', 'Any airline').index }, toolContext(rig, page, now.s));
      now = await observe(rig, page);
      expect(now.s.elements.filter((e) => e.role === 'option').map((e) => e.name)).toEqual(['Air Alpha', 'Bravo Wings', 'Charlie Jet']);
      await executeTool('click', { index: el(now.s, 'option', 'Bravo Wings').index }, toolContext(rig, page, now.s));
      expect(await log(page)).toBe('airline Bravo Wings');
      expect((await observe(rig, page)).s.elements.filter((e) => e.role === 'option')).toEqual([]);

      // jQuery UI's: a focusable menu appended to the body, placed under the field, items picked by a delegated click
      now = await observe(rig, page);
      await executeTool('type', { index: el(now.s, 'textbox', 'Country').index, text: 'Ne' }, toolContext(rig, page, now.s));
      now = await observe(rig, page);
      expect(now.text).toMatch(/\[\d+\] textbox 'Country' value='Ne' focused\n[^]*\n\[\d+\] option 'Nepal'\n\[\d+\] option 'Netherlands'$/);
      await executeTool('click', { index: el(now.s, 'option', 'Netherlands').index }, toolContext(rig, page, now.s));
      expect(await log(page)).toBe('country Netherlands');
    } finally {
      await context.close();
    }
  });
});

describe('fields and generated text', () => {
  it('names a field by the untied <label> right before it, tells a textarea apart, and reads ::before/::after text', async () => {
    const { context, page } = await openPage(rig, '/form.html');
    try {
      const { s, text } = await observe(rig, page);
      const body = text.split('\n\n')[1]!.replace(/^\[\d+\] /gm, '');
      expect(body).toBe(
        [
          '# Contact us',
          'Your name *',
          "textbox 'Your name' value=''",
          'E-mail',
          "textbox 'E-mail' value=''",
          'Message',
          "textbox 'Message' value='' multiline",
          "textbox 'Subject' value=''",
          "textbox 'Notes' value='' multiline",
          'Total: $42.00',
          'Inbox 3 new',
          // A picture in ::before (content: url(data:…svg)) is not text: the checkbox keeps its own name.
          "checkbox 'Lettuce' unchecked",
          "button 'Send message'",
          "button 'Close form'",
        ].join('\n'),
      );
      expect(el(s, 'textbox', 'Message').tag).toBe('textarea');
      const ctx = toolContext(rig, page, s);
      await executeTool('type', { index: el(s, 'textbox', 'E-mail').index, text: 'ada@example.com' }, ctx);
      expect(await page.locator('input[name=e]').inputValue()).toBe('ada@example.com');
      await executeTool('type', { index: el(s, 'textbox', 'Message').index, text: 'Hello' }, ctx);
      expect(await page.locator('textarea').inputValue()).toBe('Hello');
      await executeTool('click', { index: el(s, 'button', 'Send message').index }, ctx);
      expect(await log(page)).toBe('sent');
    } finally {
      await context.close();
    }
  });
});
