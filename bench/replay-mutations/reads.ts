import type { Page } from 'playwright-core';

import type { RealisticSites } from '../../test/fixtures/realistic/server';
import type { ListRead } from './mutations';

/**
 * The replayable list reads of the test corpora, each with its answer read by hand: the list reads of
 * bench:replayable on the realistic invoices page (test/fixtures/realistic/), the ticket reads of
 * test/agent-replay/list-rules.browser.test.ts, and the flow editor of issue 34 (test/agent-replay/flow-editor-page.ts).
 */
const mark = (page: Page, list: string) => page.evaluate((s) => document.querySelector(s)!.setAttribute('data-mut-list', ''), list);

interface Row {
  number: string;
  amount: number;
  status: string;
}
const invoiceRows = (page: Page): Promise<Row[]> =>
  page.$$eval('[data-mut-list] > tr:not(.mut-added)', (trs) =>
    trs.map((tr) => {
      const td = tr.querySelectorAll('td');
      return {
        number: td[0]!.textContent!.trim(),
        amount: Number(td[3]!.textContent!.replace(/[^\d.]/g, '')),
        status: td[4]!.textContent!.trim(),
      };
    }),
  );

type Ticket = [title: string, status: string, priority: number];
const TICKETS: Ticket[] = [
  ['Login fails on Safari', 'Open', 3],
  ['Export to CSV is slow', 'Closed', 1],
  ['Typo on the pricing page', 'Open', 1],
  ['Dark mode flickers', 'Closed', 4],
  ['Invoice PDF misses VAT', 'Open', 5],
  ['Search ignores accents', 'Pending', 2],
];
const ticketsPage = `<!doctype html><html><body><main><h1>Tickets</h1><table aria-label="Tickets"><thead><tr><th>Title</th><th>Status</th><th>Priority</th></tr></thead>
  <tbody>${TICKETS.map(([t, s, p]) => `<tr><td><a href="#">${t}</a></td><td><span class="badge">${s}</span></td><td>${p}</td></tr>`).join('')}</tbody></table></main></body></html>`;
const ticketRows = (page: Page): Promise<Ticket[]> =>
  page.$$eval('[data-mut-list] > tr:not(.mut-added)', (trs) =>
    trs.map((tr) => {
      const td = tr.querySelectorAll('td');
      return [td[0]!.textContent!.trim(), td[1]!.textContent!.trim(), Number(td[2]!.textContent)] as Ticket;
    }),
  );

export function listReads(o: { sites: RealisticSites; flowEditor: (flows: string[]) => string }): ListRead[] {
  const invoices = (id: string, action: string, answer: (rows: Row[]) => Record<string, unknown>): ListRead => ({
    id,
    action,
    list: 'table.data-table tbody',
    item: 'tr',
    block: 'table.data-table',
    heading: { selector: 'h1' },
    open: async (page) => {
      o.sites.reset();
      await page.goto(o.sites.url('/invoices/'));
      await page.locator('table.data-table tbody tr').first().waitFor();
      await mark(page, 'table.data-table tbody');
    },
    answer: async (page) => answer(await invoiceRows(page)),
  });
  const byAmount = (rows: Row[]) => [...rows].sort((a, b) => b.amount - a.amount);
  const tickets = (id: string, action: string, answer: (rows: Ticket[]) => Record<string, unknown>): ListRead => ({
    id,
    action,
    list: 'tbody',
    item: 'tr',
    block: 'table',
    heading: { selector: 'table', attr: 'aria-label' },
    open: async (page) => {
      await page.setContent(ticketsPage);
      await mark(page, 'tbody');
    },
    answer: async (page) => answer(await ticketRows(page)),
  });
  return [
    invoices('list-overdue-invoices', 'List the overdue invoices on the first page.', (rows) => ({
      invoices: rows.filter((r) => r.status === 'Overdue').map((r) => r.number),
    })),
    invoices('list-three-largest-invoices', 'Which are the three largest invoices on the first page, largest first?', (rows) => ({
      invoices: byAmount(rows)
        .slice(0, 3)
        .map(({ number, amount }) => ({ number, amount })),
    })),
    invoices('list-first-two-paid', 'Give me the first two paid invoices on the first page.', (rows) => ({
      invoices: rows
        .filter((r) => r.status === 'Paid')
        .slice(0, 2)
        .map((r) => r.number),
    })),
    invoices('list-first-three-invoices', 'List the first three invoices.', (rows) => ({
      invoices: rows.slice(0, 3).map((r) => r.number),
    })),
    invoices('list-all-invoices', 'List the invoices on the first page with their amounts.', (rows) => ({
      invoices: rows.map(({ number, amount }) => ({ number, amount })),
    })),
    tickets('tickets-open', 'List my open tickets.', (rows) => ({ tickets: rows.filter((t) => t[1] === 'Open').map((t) => t[0]) })),
    tickets('tickets-top-priority', 'The 2 tickets with the highest priority.', (rows) => ({
      tickets: [...rows]
        .sort((a, b) => b[2] - a[2])
        .slice(0, 2)
        .map(([title, , priority]) => ({ title, priority })),
    })),
    tickets('tickets-all', 'List all tickets.', (rows) => ({ tickets: rows.map((t) => t[0]) })),
    {
      id: 'node-red-flows',
      action: 'List the names of my flows',
      list: '.tree',
      item: '.row',
      block: '.tree',
      heading: { selector: 'section > h3' },
      open: async (page) => {
        await page.setContent(o.flowEditor(['Invoice ingest', 'Slack alerts', 'Nightly backup']));
        await mark(page, '.tree');
      },
      answer: async (page) => ({
        flows: await page.$$eval('[data-mut-list] > .row:not(.mut-added) .label', (ls) => ls.map((l) => ({ name: l.textContent!.trim() }))),
      }),
    },
  ];
}
