import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import { NO_PERSON } from '../../server/agent/handoff/user-ask';
import { elementLocator, type PageSnapshot, Redactor, renderSnapshot, takeSnapshot } from '../../server/agent/observation';
import { parameterSlots } from '../../server/agent/planner/placeholders';
import { planResult, readResult } from '../../server/agent/replay/extraction';
import { ToolError } from '../../server/agent/result/errors';
import { RunIntegrity } from '../../server/agent/run/integrity';
import { executeTool, type ToolContext } from '../../server/agent/tools';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { startBrowser } from '../support/live-server';

/**
 * The page view the model reads, on a local page served on 127.0.0.1: roles, names, values and states,
 * what is left out, what is masked, a modal dialog, and the tools that act on indices (custom listbox,
 * native select, contenteditable). Also the result plans a replay reads from the live page.
 */
const COOKIE = randomBytes(32).toString('base64url');

const FIXTURE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Fixture settings</title></head><body>
<header><nav aria-label="Main"><a href="/a">Home</a> <a href="/b" aria-current="page">Settings</a></nav></header>
<main>
<h1>Account settings</h1>
<p id="cookie-line"></p>
<p>API key: AbCdEfGhIjKlMnOpQrStUvWxYz0123456789</p>
<p>Hello Ada Lovelace, welcome back.</p>
<form aria-label="Profile form" onsubmit="return false">
  <label for="name">Display name</label><input id="name" value="Ada">
  <label>Password <input type="password" id="pw" value="hunter2-secret"></label>
  <label><input type="checkbox" id="mail" checked> Email me</label>
  <button type="submit" disabled>Save</button>
  <label for="country">Country</label><select id="country"><option>Norway</option><option selected>Sweden</option><option value="dk">Denmark</option></select>
  <input type="hidden" name="csrf" value="csrf-value-that-must-not-show">
</form>
<div class="dd">
  <span id="color-label">Favourite colour</span>
  <button type="button" id="color-btn" aria-haspopup="listbox" aria-expanded="false" aria-labelledby="color-label color-value"><span id="color-value">Red</span></button>
  <ul role="listbox" id="color-list" aria-labelledby="color-label" hidden>
    <li role="option" aria-selected="true" data-value="red">Red</li>
    <li role="option" aria-selected="false" data-value="green">Green <small>like grass</small></li>
    <li role="option" aria-selected="false" data-value="blue">Blue</li>
  </ul>
</div>
<div id="bio" contenteditable="true" role="textbox" aria-label="Bio" aria-multiline="true"></div>
<div style="display:none"><button>Hidden button</button></div>
<div aria-hidden="true"><button>Aria hidden button</button> decoration text</div>
<section aria-label="Team">
<ul aria-label="Members">
  <li><a href="/u/1">Ada Lovelace</a> <span>1,204 followers</span></li>
  <li><a href="/u/2">Alan Turing</a> <span>987 followers</span></li>
  <li><a href="/u/3">Grace Hopper</a> <span>15 followers</span></li>
</ul>
</section>
<button type="button" id="open-dialog">Open settings dialog</button>
<dialog id="dlg" aria-labelledby="dlg-title"><h2 id="dlg-title">Confirm changes</h2><p>Apply all changes?</p><button id="dlg-ok">Apply</button><button id="dlg-cancel">Cancel</button></dialog>
</main>
<script>
document.getElementById('cookie-line').textContent = 'cookie: ' + document.cookie;
var btn = document.getElementById('color-btn'), list = document.getElementById('color-list'), val = document.getElementById('color-value');
btn.addEventListener('click', function () { list.hidden = !list.hidden; btn.setAttribute('aria-expanded', String(!list.hidden)); });
list.querySelectorAll('[role=option]').forEach(function (o) {
  o.addEventListener('click', function () {
    list.querySelectorAll('[role=option]').forEach(function (x) { x.setAttribute('aria-selected', String(x === o)); });
    val.textContent = o.firstChild.textContent.trim(); list.hidden = true; btn.setAttribute('aria-expanded', 'false');
  });
});
document.getElementById('open-dialog').addEventListener('click', function () { document.getElementById('dlg').showModal(); });
document.getElementById('dlg-cancel').addEventListener('click', function () { document.getElementById('dlg').close(); });
</script>
</body></html>`;

let server: http.Server;
let origin: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': `session=${COOKIE}; Path=/; SameSite=Lax` });
    res.end(FIXTURE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await startBrowser();
});
afterAll(async () => {
  await browser?.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(async () => {
  context = await browser.newContext();
  context.setDefaultTimeout(5_000);
  page = await context.newPage();
  await page.goto(`${origin}/`);
});
afterEach(async () => {
  await context?.close();
});

const el = (s: PageSnapshot, role: string, name: string) => {
  const hits = s.elements.filter((e) => e.role === role && e.name === name);
  if (hits.length !== 1)
    throw new Error(`${hits.length} × ${role} '${name}' in ${JSON.stringify(s.elements.map((e) => `${e.role} ${e.name}`))}`);
  return hits[0]!;
};

function toolContext(snapshot: PageSnapshot, parameters: Record<string, unknown> = {}): ToolContext {
  return {
    page,
    snapshot,
    slots: parameterSlots(parameters),
    redactor: new Redactor(),
    egress: EgressPolicy.forProvider({ name: 'Fixture', homeUrl: `${origin}/`, allowedOrigins: ['127.0.0.1'] }, 'sandbox'),
    run: { signal: new AbortController().signal, deadline: Date.now() + 20_000, provider: { name: 'Fixture' }, ...NO_PERSON },
    integrity: new RunIntegrity(),
    secrets: [],
  };
}

describe('page observation', () => {
  it('lists interactive elements with role, accessible name, value, state and region, and marks them by index', async () => {
    const s = await takeSnapshot(page);
    expect(s.url).toBe(`${origin}/`);
    expect(s.title).toBe('Fixture settings');
    expect(el(s, 'link', 'Settings')).toMatchObject({ scope: "navigation 'Main'", states: { current: true } });
    expect(el(s, 'textbox', 'Display name')).toMatchObject({ value: 'Ada', scope: "form 'Profile form'", tag: 'input' });
    expect(el(s, 'checkbox', 'Email me').states).toEqual({ checked: true });
    expect(el(s, 'button', 'Save').states).toMatchObject({ disabled: true });
    expect(el(s, 'combobox', 'Country')).toMatchObject({ value: 'Sweden', options: ['Norway', 'Sweden', 'Denmark'] });
    expect(el(s, 'button', 'Favourite colour Red').states).toEqual({ expanded: false, haspopup: 'listbox' });
    expect(el(s, 'textbox', 'Bio')).toMatchObject({ value: '', tag: 'div' });
    expect(el(s, 'link', 'Alan Turing').scope).toBe("list 'Members'");

    const view = renderSnapshot(s);
    expect(view).toContain('# Account settings');
    expect(view).toMatch(/\[\d+\] checkbox 'Email me' checked/);
    expect(view).toMatch(/\[\d+\] button 'Save' disabled/);
    expect(view).toMatch(/-- region 'Team' --/);
    // Hidden, aria-hidden and type=hidden content is not part of the view; the listbox is closed.
    for (const absent of ['Hidden button', 'Aria hidden button', 'decoration text', 'csrf-value', "option 'Green"])
      expect(view).not.toContain(absent);

    // An index names exactly the element it was given to.
    expect(await (await elementLocator(page, el(s, 'checkbox', 'Email me').index)).getAttribute('id')).toBe('mail');
    expect(await (await elementLocator(page, el(s, 'button', 'Favourite colour Red').index)).getAttribute('id')).toBe('color-btn');
  });

  it('never shows a password, a cookie value or a token, and shows parameter values only as placeholders', async () => {
    const cookies = (await context.cookies()).map((c) => c.value);
    expect(cookies).toContain(COOKIE);
    const s = await takeSnapshot(page, {
      redactor: new Redactor({ secrets: cookies, placeholders: [{ value: 'Ada Lovelace', placeholder: '{{parameters.name}}' }] }),
    });
    const view = renderSnapshot(s);
    expect(view).not.toContain(COOKIE);
    expect(view).not.toContain('hunter2');
    expect(view).not.toContain('AbCdEfGhIjKl');
    expect(view).toContain('cookie: session=[secret]');
    expect(view).toContain('API key: [token]');
    expect(view).toContain("textbox 'Password' value='[hidden]'");
    expect(view).toContain('Hello {{parameters.name}}, welcome back.');
    expect(view).toContain("link '{{parameters.name}}'");
    expect(view).toContain("value='Ada'"); // a whole-word match only: "Ada" alone is not the parameter
  });

  it('shows only the open modal dialog', async () => {
    await page.getByRole('button', { name: 'Open settings dialog' }).click();
    const s = await takeSnapshot(page);
    expect(s.modal).toBe(true);
    expect(s.elements.map((e) => `${e.role} ${e.name}`)).toEqual(['dialog Confirm changes', 'button Apply', 'button Cancel']);
    expect(el(s, 'button', 'Apply').scope).toBe("dialog 'Confirm changes'");
    expect(renderSnapshot(s)).toContain('## Confirm changes');
  });

  it('keeps the view bounded', async () => {
    const s = await takeSnapshot(page, { maxElements: 4 });
    expect(s.elements).toHaveLength(4);
    expect(s.truncated.elements).toBeGreaterThan(5);
    expect(renderSnapshot(s)).toMatch(/\(\d+ more interactive elements not shown\)$/);
  });
});

describe('tools on indices', () => {
  it('chooses in a custom listbox and a native select, and types a placeholder into a contenteditable', async () => {
    const params = { colour: 'green', country: 'dk', bio: 'Mathematician.\nFirst programmer.' };
    let s = await takeSnapshot(page);
    const chose = await executeTool(
      'select',
      { index: el(s, 'button', 'Favourite colour Red').index, option: '{{parameters.colour}}' },
      toolContext(s, params),
    );
    expect(chose).toMatchObject({
      message: "chose 'Green like grass' in button 'Favourite colour Red'",
      record: { option: '{{parameters.colour}}' },
    });
    s = await takeSnapshot(page);
    expect(el(s, 'button', 'Favourite colour Green').states.expanded).toBe(false);

    await executeTool('select', { index: el(s, 'combobox', 'Country').index, option: '{{parameters.country}}' }, toolContext(s, params));
    expect(await page.locator('#country').inputValue()).toBe('dk');

    s = await takeSnapshot(page);
    const typed = await executeTool('type', { index: el(s, 'textbox', 'Bio').index, text: '{{parameters.bio}}' }, toolContext(s, params));
    expect(typed.message).toBe("typed '{{parameters.bio}}' into textbox 'Bio'");
    expect(await page.locator('#bio').innerText()).toBe('Mathematician.\nFirst programmer.');

    s = await takeSnapshot(page);
    await expect(
      executeTool('select', { index: el(s, 'button', 'Favourite colour Green').index, option: 'purple' }, toolContext(s)),
    ).rejects.toThrow(/no option matches 'purple'; the options are 'Red', 'Green like grass', 'Blue'/);
    await expect(
      executeTool('type', { index: el(s, 'textbox', 'Bio').index, text: '{{parameters.nope}}' }, toolContext(s)),
    ).rejects.toThrow(ToolError);
  });

  it('refuses navigation off the allowed domains and stale indices', async () => {
    const s = await takeSnapshot(page);
    await expect(executeTool('navigate', { url: 'http://example.com/' }, toolContext(s))).rejects.toMatchObject({ blocked: true });
    await expect(executeTool('click', { index: 999 }, toolContext(s))).rejects.toThrow(
      'there is no element [999] in the latest observation',
    );
    const clicked = await executeTool('click', { index: el(s, 'checkbox', 'Email me').index }, toolContext(s));
    expect(clicked.message).toBe("clicked checkbox 'Email me' (now unchecked)");
    expect(await page.locator('#mail').isChecked()).toBe(false);
  });
});

describe('result plans read from the live page', () => {
  it('traces leaves and lists back to the page and reads the current values again', async () => {
    const data = {
      title: 'Account settings',
      members: [
        { name: 'Ada Lovelace', followers: 1204 },
        { name: 'Alan Turing', followers: 987 },
        { name: 'Grace Hopper', followers: 15 },
      ],
      greeting: 'Hello {{parameters.who}}',
    };
    const slots = parameterSlots({ who: 'there' });
    const filled = { ...data, greeting: 'Hello there' };
    const all = await planResult(page, data, filled, slots, { constantsAllowed: false });
    expect(all.ok).toBe(true);
    const firstTwo = await planResult(page, { members: data.members.slice(0, 2) }, { members: filled.members.slice(0, 2) }, slots, {
      constantsAllowed: false,
    });
    expect(firstTwo.ok).toBe(true);

    await page.evaluate(() => {
      const ul = document.querySelector('ul[aria-label="Members"]')!;
      ul.children[1]!.querySelector('span')!.textContent = '1,990 followers';
      const li = document.createElement('li');
      li.innerHTML = '<a href="/u/4">Edsger Dijkstra</a> <span>2 followers</span>';
      ul.appendChild(li);
    });
    expect(all.ok && (await readResult(page, all.value, slots))).toEqual({
      ok: true,
      value: {
        title: 'Account settings',
        members: [
          { name: 'Ada Lovelace', followers: 1204 },
          { name: 'Alan Turing', followers: 1990 },
          { name: 'Grace Hopper', followers: 15 },
          { name: 'Edsger Dijkstra', followers: 2 },
        ],
        greeting: 'Hello there',
      },
    });
    expect(firstTwo.ok && (await readResult(page, firstTwo.value, slots))).toEqual({
      ok: true,
      value: {
        members: [
          { name: 'Ada Lovelace', followers: 1204 },
          { name: 'Alan Turing', followers: 1990 },
        ],
      },
    });
  });

  it('refuses what it cannot read back: values not on the page, yes/no answers of a read-only run', async () => {
    const slots = parameterSlots({});
    expect(await planResult(page, { name: 'Nobody Here' }, { name: 'Nobody Here' }, slots, { constantsAllowed: false })).toEqual({
      ok: false,
      reason: 'name: not found on the page',
    });
    expect(await planResult(page, { ok: true }, { ok: true }, slots, { constantsAllowed: false })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('cannot be read back'),
    });
    expect(await planResult(page, { ok: true }, { ok: true }, slots, { constantsAllowed: true })).toEqual({
      ok: true,
      value: { kind: 'object', properties: { ok: { kind: 'const', value: true } } },
    });
    expect(await planResult(page, { members: [] }, { members: [] }, slots, { constantsAllowed: true })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('empty list'),
    });
  });
});

describe('Redactor: short secrets', () => {
  it('masks secrets of every length, short ones only as whole words or whole values', () => {
    const r = new Redactor({ secrets: ['hunter2-long', 'pw9', 'ab', 'x'] });
    expect(r.text('password hunter2-long!')).toBe('password [secret]!');
    expect(r.text('cookie: sid=pw9; next pw9x')).toBe('cookie: sid=[secret]; next pw9x');
    expect(r.text('ab')).toBe('[secret]');
    expect(r.text(' x ')).toBe('[secret]');
    expect(r.text('about tab x-ray')).toBe('about tab x-ray');
  });
});
