import type { Browser, Page } from 'playwright-core';

import { parameterSlots } from '../../server/agent/planner/placeholders';
import { planResult, readResult } from '../../server/agent/replay/extraction';
import type { ResultPlan } from '../../server/agent/replay/trajectory';
import { startBrowser } from '../support/live-server';

/**
 * Filtered and sorted reads (issue 24): an answer that is a subset of a list on the page is recorded with the rule
 * that selects it — a value the chosen items share and the others lack, an order, a count — checked on the same
 * page, parameterised when the value came from the request, and applied again when the result is read on replay.
 * In real Chromium, through the recorder's own planResult and the replay's readResult.
 */
jest.setTimeout(60_000);

let browser: Browser;
let page: Page;
beforeAll(async () => {
  browser = await startBrowser();
  page = await browser.newPage();
});
afterAll(async () => {
  await browser?.close();
});

type Ticket = [title: string, status: string, priority: number, opened: string];
const TICKETS: Ticket[] = [
  ['Login fails on Safari', 'Open', 3, '2025-10-02'],
  ['Export to CSV is slow', 'Closed', 1, '2025-09-12'],
  ['Typo on the pricing page', 'Open', 1, '2025-10-20'],
  ['Dark mode flickers', 'Closed', 4, '2025-08-30'],
  ['Invoice PDF misses VAT', 'Open', 5, '2025-10-11'],
  ['Search ignores accents', 'Pending', 2, '2025-10-15'],
];

function table(rows: Ticket[], extra = ''): string {
  return `<main><h1>Tickets</h1>${extra}<table aria-label="Tickets"><thead><tr><th>Title</th><th>Status</th><th>Priority</th><th>Opened</th></tr></thead>
    <tbody>${rows
      .map(([t, s, p, d]) => `<tr><td><a href="#">${t}</a></td><td><span class="badge">${s}</span></td><td>${p}</td><td>${d}</td></tr>`)
      .join('')}</tbody></table></main>`;
}
const set = (html: string) => page.setContent(`<!doctype html><html><body>${html}</body></html>`);
const titles = (rows: Ticket[]) => rows.map((r) => r[0]);
const plan = (answer: unknown, parameters: Record<string, unknown> = {}, raw: unknown = answer, request?: string) =>
  planResult(page, raw, answer, parameterSlots(parameters), { constantsAllowed: false, ...(request ? { request } : {}) });
const listOf = (p: ResultPlan) => (p.kind === 'object' ? (p.properties.tickets as Extract<ResultPlan, { kind: 'list' }>) : null);

describe('a list answer that is not the first items of its list', () => {
  it('is recorded with the value its items share (status Open), and replay reads the open ones of the page as it is then', async () => {
    await set(table(TICKETS));
    const open = TICKETS.filter((t) => t[1] === 'Open');
    const res = await plan({ tickets: titles(open) });
    if (!res.ok) throw new Error(res.reason);
    expect(listOf(res.value)?.list.rule).toEqual({
      filter: {
        path: [
          ['td', 1],
          ['span', 0],
        ],
        equals: 'Open',
      },
    });
    expect(listOf(res.value)?.list.limit).toBeNull();

    // Next run: one ticket closed, a new one opened, the rows in another order.
    const later: Ticket[] = [['New: 2FA codes rejected', 'Open', 2, '2025-11-01'], ...TICKETS.map((t) => [...t] as Ticket).reverse()];
    later.find((t) => t[0] === 'Typo on the pricing page')![1] = 'Closed';
    await set(table(later));
    expect(await readResult(page, res.value, [])).toEqual({
      ok: true,
      value: { tickets: titles(later.filter((t) => t[1] === 'Open')) },
    });
  });

  it('records an order and a count (the 2 highest priorities), read again on a page with a new top ticket', async () => {
    await set(table(TICKETS));
    const top = [...TICKETS].sort((a, b) => b[2] - a[2]).slice(0, 2);
    const res = await plan({ tickets: top.map(([title, , priority]) => ({ title, priority })) });
    if (!res.ok) throw new Error(res.reason);
    expect(listOf(res.value)?.list).toMatchObject({ limit: 2, rule: { order: { path: [['td', 2]], kind: 'number', dir: 'desc' } } });
    await set(table([...TICKETS, ['Data loss on sync', 'Open', 9, '2025-11-02']]));
    expect(await readResult(page, res.value, [])).toEqual({
      ok: true,
      value: {
        tickets: [
          { title: 'Data loss on sync', priority: 9 },
          { title: 'Invoice PDF misses VAT', priority: 5 },
        ],
      },
    });
  });

  it('records a filter and a count (the first 2 open tickets)', async () => {
    await set(table(TICKETS));
    const res = await plan({ tickets: titles(TICKETS.filter((t) => t[1] === 'Open').slice(0, 2)) });
    if (!res.ok) throw new Error(res.reason);
    expect(listOf(res.value)?.list).toMatchObject({ limit: 2, rule: { filter: { equals: 'Open' } } });
  });

  it('stores a filter on a parameter as its placeholder, and reads with the value of the run', async () => {
    await set(table(TICKETS));
    const pending = TICKETS.filter((t) => t[1] === 'Pending');
    const res = await plan({ tickets: titles(pending) }, { status: 'pending' });
    if (!res.ok) throw new Error(res.reason);
    expect(listOf(res.value)?.list.rule?.filter?.equals).toBe('{{parameters.status}}');
    // Another run asks for the closed ones: the same trajectory reads them.
    expect(await readResult(page, res.value, parameterSlots({ status: 'closed' }))).toEqual({
      ok: true,
      value: { tickets: titles(TICKETS.filter((t) => t[1] === 'Closed')) },
    });
  });

  it('a request parameter decides between two filters that fit the page alike; without it the read is not recorded', async () => {
    // Every open ticket is also Ada's: "status Open" and "owner Ada" select the same rows.
    const owned = (rows: Ticket[]) =>
      `<ul aria-label="Tickets">${rows
        .map(([t, s]) => `<li><h3>${t}</h3><span>${s}</span><em>${s === 'Open' ? 'Ada' : 'Grace'}</em></li>`)
        .join('')}</ul>`;
    await set(owned(TICKETS));
    const open = titles(TICKETS.filter((t) => t[1] === 'Open'));
    const ambiguous = await plan({ tickets: open });
    expect(ambiguous).toEqual({ ok: false, reason: expect.stringContaining('more than one rule selects the answer on this page') });
    const asked = await plan({ tickets: open }, { owner: 'Ada' });
    if (!asked.ok) throw new Error(asked.reason);
    expect(listOf(asked.value)?.list.rule?.filter).toMatchObject({ equals: '{{parameters.owner}}', path: [['em', 0]] });
  });

  it('is not recorded when no rule selects exactly the answer', async () => {
    await set(table(TICKETS));
    // The first and the fourth: no shared value, no order, no count picks these two.
    const res = await plan({ tickets: [TICKETS[0]![0], TICKETS[3]![0]] });
    expect(res).toEqual({
      ok: false,
      reason: expect.stringContaining('no rule (a value they share, an order, a count) selects exactly them'),
    });
  });

  it('a rule that no longer selects anything on replay fails the read (the replay hands over to the planner)', async () => {
    await set(table(TICKETS));
    const res = await plan({ tickets: titles(TICKETS.filter((t) => t[1] === 'Open')) });
    if (!res.ok) throw new Error(res.reason);
    // The statuses moved out of the rows (a redesign): the recorded rule selects nothing.
    await set(table(TICKETS.map(([t, , p, d]) => [t, '—', p, d] as Ticket)));
    expect(await readResult(page, res.value, [])).toEqual({
      ok: false,
      mismatch: true,
      reason: "no item of the list reads 'Open' where the rule reads it",
    });
  });

  it('keeps the count the request asks for when the page had no more (the first two closed ones, with two closed)', async () => {
    await set(table(TICKETS));
    const closed = titles(TICKETS.filter((t) => t[1] === 'Closed'));
    const res = await plan({ tickets: closed }, {}, { tickets: closed }, 'Give me the first two closed tickets');
    if (!res.ok) throw new Error(res.reason);
    expect(listOf(res.value)?.list).toMatchObject({ limit: 2, rule: { filter: { equals: 'Closed' } } });
    // A third closed ticket later: still the first two (without the count, all three were answered).
    await set(table([...TICKETS, ['Avatar upload fails', 'Closed', 2, '2025-11-02']]));
    expect(await readResult(page, res.value, [])).toEqual({ ok: true, value: { tickets: closed } });
  });
});
