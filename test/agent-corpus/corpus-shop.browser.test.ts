import { describeCorpusPart } from './corpus-suite';

/**
 * The realistic corpus's tasks on the shop, checkout, news and article pages (web components, frames of another
 * origin, consent banners, long text, new tabs): each through the real planner loop in real Chromium. The other
 * sites' tasks are in corpus-apps.browser.test.ts; corpus-suite.ts says why there are two files.
 */
jest.setTimeout(150_000);

describeCorpusPart('shop and reading');
