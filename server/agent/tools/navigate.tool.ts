import { z } from 'zod';

import { quote } from '../observation';
import { ToolError } from '../result/errors';
import { act, fillUrl, pageTool, REPLAY_AS_RECORDED, templated, timeout } from './page-tool';

export const navigateTool = pageTool({
  name: 'navigate',
  description:
    "Open a URL in the current tab. Only the provider's own site can be opened; relative paths are resolved against the current page.",
  params: z
    .object({ url: templated('Absolute URL or path. A parameter only as the whole URL, and only when its value is itself a URL.') })
    .strict(),
  writes: false,
  describe: (step) => `navigate to ${String(step.args.url)}`,
  replay: REPLAY_AS_RECORDED,
  async execute(args, tc) {
    const template = String(args.url);
    let url: URL;
    try {
      url = new URL(fillUrl(template, tc), tc.page.url());
    } catch (err) {
      if (err instanceof ToolError) throw err;
      throw new ToolError(`${quote(template)} is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ToolError('only http and https URLs can be opened', true);
    // The run's egress policy decides (exact scheme, host and port), as it does for the browser's own traffic.
    const verdict = tc.egress.checkUrl(url);
    if (!verdict.ok) {
      throw new ToolError(`${url.host} is outside this provider's site (${tc.egress.describe()}); navigation blocked`, true);
    }
    const current = new URL(tc.page.url());
    await act('navigation', () => tc.page.goto(url.toString(), { waitUntil: 'domcontentloaded', timeout: timeout(tc) }));
    // Stored relative to the site when it stays on the same origin, so a replay works on any port or host alias.
    return {
      message: `opened ${tc.redactor.text(url.pathname + url.search)}`,
      record: { url: template.startsWith(current.origin) ? template.slice(current.origin.length) || '/' : template },
    };
  },
});
