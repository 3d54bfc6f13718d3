import type { NextFunction, Request, Response } from 'express';

import { html } from '../../../../sandbox/kit/html';
import type { SiteKit } from '../../../../sandbox/kit/site';
import { findTestUser } from '../../../../sandbox/test-users';
import { C } from '../classes';
import { cls } from '../ui';

export type Handler = (req: Request, res: Response) => Promise<void> | void;

/** Express 4 does not catch rejected promises; this hands them to the site's error page. */
export const h =
  (fn: Handler) =>
  (req: Request, res: Response, next: NextFunction): void => {
    Promise.resolve(fn(req, res)).catch(next);
  };

export const USERNAME = /^[a-z0-9_-]{1,40}$/i;
export const POST_KEY = /^\d{10,25}$/;

/** Sandbox test users get notifications; seeded people are simulated and have nobody reading theirs. */
export const isMember = (username: string) => !!findTestUser(username);

export const wantsJson = (req: Request) => (req.get('accept') ?? '').includes('application/json');

export function notFound(req: Request, res: Response, kit: SiteKit, title: string, message: string) {
  kit.page(req, res, { title, body: notFoundBody(title, message) }, 404);
}

const notFoundBody = (title: string, message: string) =>
  html`<section class="${cls('card', 'pad')}"><div class="${C.empty}"><h1 class="${C.heading}">${title}</h1><p>${message}</p><p><a class="${cls('btn', 'btnPrimary')}" href="/">Go to your feed</a></p></div></section>`;

export const text = (v: unknown, max: number): string | null => {
  const t = typeof v === 'string' ? v.replace(/\r\n/g, '\n').trim() : '';
  return t.length > 0 && t.length <= max ? t : null;
};
