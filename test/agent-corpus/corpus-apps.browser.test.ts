import { describeCorpusPart } from './corpus-suite';

/**
 * The realistic corpus's tasks on the app pages (mega menus, invoices, sign-up, settings, reports in new tabs, date
 * pickers): each through the real planner loop in real Chromium. The shop and reading tasks are in
 * corpus-shop.browser.test.ts; corpus-suite.ts says why there are two files.
 */
jest.setTimeout(150_000);

describeCorpusPart('apps and forms');
