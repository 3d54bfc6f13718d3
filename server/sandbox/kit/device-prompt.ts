import type { Express, Request, Response } from 'express';

import { html, type RawHtml } from './html';

/**
 * user_device's step: "approve this sign-in on your phone", the kind of device prompt (or passkey) a real site shows
 * and a login recipe cannot answer. In the sandbox the phone is a button on the page itself ("I approved it"), so a
 * person in the widget's live view can pass it; the recipe does not know the page, and hands over to the live view.
 */
export const DEVICE_PROMPT_PATH = '/login/device';

export interface DevicePromptDeps {
  load(res: Response): Promise<{ id: string; username: string; tenant: string; next: string } | null>;
  drop(res: Response, id: string): Promise<void>;
  startSession(res: Response, username: string, tenant: string, next: string): Promise<void>;
  authPage(res: Response, status: number, title: string, content: RawHtml): void;
  preCsrf(req: Request, res: Response): string;
  checkPreCsrf(req: Request, res: Response): boolean;
}

export function mountDevicePrompt(app: Express, deps: DevicePromptDeps): void {
  app.get(DEVICE_PROMPT_PATH, async (req, res, next) => {
    try {
      if (!(await deps.load(res))) return res.redirect(303, '/login');
      deps.authPage(
        res,
        200,
        'Approve this sign-in',
        html`<h1>Approve this sign-in</h1>
<p>We sent a prompt to your phone ending in 42. Open it and tap <strong>Yes, it's me</strong>.</p>
<form method="post" action="${DEVICE_PROMPT_PATH}">
<input type="hidden" name="_csrf" value="${deps.preCsrf(req, res)}">
<button type="submit" name="approved" value="yes">I approved it on my phone</button>
</form>`,
      );
    } catch (err) {
      next(err);
    }
  });

  app.post(DEVICE_PROMPT_PATH, async (req, res, next) => {
    try {
      const pending = await deps.load(res);
      if (!pending || !deps.checkPreCsrf(req, res) || req.body?.approved !== 'yes') return res.redirect(303, '/login');
      await deps.drop(res, pending.id);
      await deps.startSession(res, pending.username, pending.tenant, pending.next);
    } catch (err) {
      next(err);
    }
  });
}
