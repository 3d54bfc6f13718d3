import type { Page } from 'playwright-core';

import { Redactor, takeSnapshot } from '../../server/agent/observation';
import { EgressPolicy } from '../../server/egress/egress-policy';
import { apgProvider, type ApgRig, apgUrl } from '../../test/agent-corpus/apg-harness';
import { openFencedPage } from '../../test/agent-corpus/corpus-harness';
import { auditControls, type ControlAudit } from '../observation/ground-truth';

/**
 * Named coverage of the public corpus: on each example page (and with each widget opened the way a person opens
 * it), the visible interactive elements found WITHOUT the observation (../observation/ground-truth.ts: Chromium's
 * accessibility tree and its own "clickable" bit) against those the observation lists with a non-empty name.
 * Widgets are opened with Playwright's own role locators, so the states measured do not depend on the observation.
 */
export interface CoverageState {
  /** The page under patterns/, and what was opened on it. */
  page: string;
  opened?: string;
  open?: (page: Page) => Promise<void>;
}

const button = (name: string) => (page: Page) => page.getByRole('button', { name, exact: true }).first().click();
const clickRole = (role: Parameters<Page['getByRole']>[0], name: string) => (page: Page) =>
  page.getByRole(role, { name, exact: true }).first().click();

/** Widget states worth measuring besides a page as it loads: menus, pickers, dialogs, expanded trees. */
export const OPENED_STATES: CoverageState[] = [
  { page: 'menu-button/examples/menu-button-actions.html', opened: 'Actions menu', open: button('Actions') },
  { page: 'menubar/examples/menubar-editor.html', opened: 'Font menu', open: clickRole('menuitem', 'Font') },
  { page: 'combobox/examples/combobox-autocomplete-list.html', opened: 'States list', open: button('States') },
  { page: 'combobox/examples/combobox-select-only.html', opened: 'fruit list', open: clickRole('combobox', 'Favorite Fruit') },
  { page: 'combobox/examples/combobox-datepicker.html', opened: 'date grid', open: button('Choose Date') },
  { page: 'dialog-modal/examples/datepicker-dialog.html', opened: 'date dialog', open: button('Choose Date') },
  { page: 'dialog-modal/examples/dialog.html', opened: 'address dialog', open: button('Add Delivery Address') },
  {
    page: 'treeview/examples/treeview-1b.html',
    opened: 'Projects expanded',
    open: (page) => page.locator('[role=treeitem]', { hasText: 'Projects' }).first().click(),
  },
  { page: 'toolbar/examples/toolbar.html', opened: 'font menu', open: button('Font: Sans-serif') },
];

/** Time for what a page does after load (the usage note fetched by the guide's script, highlighted source). */
const SETTLE_MS = 500;

export interface CoverageRow {
  state: string;
  audit: ControlAudit;
}

export async function measureCoverage(rig: Pick<ApgRig, 'site' | 'browser'>, state: CoverageState): Promise<CoverageRow> {
  const provider = apgProvider(rig.site);
  const opened = await openFencedPage(rig.browser, provider, apgUrl(rig.site, state.page));
  try {
    await opened.page.waitForTimeout(SETTLE_MS);
    if (state.open) {
      await state.open(opened.page);
      await opened.page.waitForTimeout(SETTLE_MS);
    }
    const snapshot = await takeSnapshot(opened.page, { redactor: new Redactor(), egress: EgressPolicy.forProvider(provider, 'sandbox') });
    // The DOM now carries this observation's indices: the audit looks them up.
    const audit = await auditControls(opened.page, snapshot);
    const name = state.page.replace(/^.*\/examples\//, '').replace(/\.html$/, '');
    return { state: state.opened ? `${name} + ${state.opened}` : name, audit };
  } finally {
    await opened.context.close();
  }
}
