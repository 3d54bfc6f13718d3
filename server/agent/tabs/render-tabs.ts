import { quote, type Redactor } from '../observation';
import { escapeInline, escapeOneLine, type InjectionMarker } from '../observation/untrusted';
import { MAX_TABS, type TabInfo, type TabNote } from './run-tabs';

/**
 * The tabs block at the top of the observation, only when the run has more than one tab or something happened
 * to its tabs:
 *
 *   Tabs: [1] 'Feed | Orbit' http://orbit…/, [2] current 'Report Q3' http://orbit…/reports/q3 (new)
 *   Tabs: a new tab to evil.example:443 was closed: it is not on the provider's site.
 *
 * Titles, URLs and hosts come from pages: redacted, clipped and escaped like the rest of the observation. Every
 * line starts with "Tabs:", which page text cannot pass for (untrusted.ts marks page lines shaped like it).
 */
const MAX_TITLE = 80;
const MAX_URL = 120;

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export interface TabsView {
  tabs: TabInfo[];
  notes: TabNote[];
}

export function renderTabs(view: TabsView, opts: { redactor: Redactor; boundary: string; markers: InjectionMarker[] }): string {
  if (view.tabs.length <= 1 && view.notes.length === 0) return '';
  const page = (s: string, max: number) => clip(opts.redactor.text(s), max);
  const lines: string[] = [];
  if (view.tabs.length > 1 || view.notes.some((n) => n.kind !== 'refused' && n.kind !== 'limit')) {
    const tabs = view.tabs.map((t) => {
      const title = escapeInline(quote(page(t.title, MAX_TITLE)), opts.boundary, opts.markers);
      const url = escapeOneLine(page(t.url, MAX_URL), opts.boundary, opts.markers);
      return `[${t.id}]${t.current ? ' current' : ''} ${title} ${url}${t.fresh ? ' (new)' : ''}`;
    });
    lines.push(`Tabs: ${tabs.join(', ')}`);
  }
  for (const n of view.notes) {
    switch (n.kind) {
      case 'closed':
        lines.push(`Tabs: tab [${n.id}] was closed by its page${n.now === undefined ? '' : `; the current tab is now [${n.now}]`}.`);
        break;
      case 'refused': {
        const host = n.host === null ? '' : ` to ${escapeOneLine(page(n.host, MAX_URL), opts.boundary, opts.markers)}`;
        lines.push(`Tabs: a new tab${host} was closed: it did not open a page of the provider's site.`);
        break;
      }
      case 'limit':
        lines.push(`Tabs: a new tab was closed: a run keeps at most ${MAX_TABS} tabs; close one you no longer need.`);
        break;
      case 'reopened':
        lines.push(`Tabs: every tab was closed; a new empty tab [${n.id}] is open (navigate to continue).`);
        break;
      case 'opened':
        break; // shown as "(new)" in the list
    }
  }
  return lines.join('\n');
}

/** The observation with the tabs block on top (nothing changes when there is none). */
export function withTabs(observation: string, tabs: string): string {
  return tabs ? `${tabs}\n${observation}` : observation;
}
