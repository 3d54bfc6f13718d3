import fs from 'node:fs';
import path from 'node:path';

import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { z, type ZodTypeAny } from 'zod';

import { LINK_ERROR_CODES } from '../../contract/link-messages';
import { ENVIRONMENTS } from '../../contract/schemas';
import type { Result } from '../domain/errors';
import { errorEnvelope, sendError } from '../http/api-error';
import { jsonBody } from '../http/json-body';
import { PAGE_ENTRIES } from '../page-code/entries';
import { pageBundle } from '../page-code/page-bundle';
import type { Services } from '../services';
import { relaySessionCalls } from './relay/session-relay';

/**
 * The hosted connect widget, served by AgentLink under /link:
 *   GET  /link                       the page (one HTML page, one script, one stylesheet; no framework;
 *                                    the script is bundled from the TypeScript modules of widget/page/,
 *                                    the stylesheet joined from the files of widget/styles/)
 *   POST /link/api/sessions          opens a link session                  ┐ each call carries the link token
 *   POST /link/api/sessions/:id/…    consent, provider, credentials,       │ in `Authorization: Bearer …`
 *                                    mfa, human-check, live/finish, exit   ┘ (never in a logged URL)
 *   GET  /link/api/sessions/:id/live the live sign-in view's WebSocket (server/connect/live/live-socket.ts)
 * Thin: parse with zod, call the link session service, answer its view or the standard error envelope.
 */
const ASSETS = path.join(__dirname, 'widget');
const asset = (name: string) => fs.readFileSync(path.join(ASSETS, name), 'utf8');

/**
 * The widget's stylesheet, one file per topic in widget/styles/, served joined in this order as /link/widget.css:
 * one request, one 'self' source for the CSP, rules cascading as they did in a single file.
 */
export const WIDGET_STYLESHEETS = ['base.css', 'screens.css', 'forms.css', 'status.css', 'live.css'] as const;
const widgetStyles = () => WIDGET_STYLESHEETS.map((f) => asset(path.join('styles', f))).join('\n');

const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors *",
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
  'Cross-Origin-Opener-Policy': 'unsafe-none',
};

const Bodies = {
  start: z.object({ env: z.enum(ENVIRONMENTS).optional() }).strict(),
  userAction: z.object({ decision: z.enum(['done', 'approve', 'deny']) }).strict(),
  provider: z.object({ providerId: z.string().uuid() }).strict(),
  credentials: z.object({ username: z.string().trim().min(1).max(256), password: z.string().min(1).max(1024) }).strict(),
  mfa: z
    .object({
      code: z
        .string()
        .trim()
        .regex(/^[0-9A-Za-z -]{1,16}$/, 'must be the code the provider asked for'),
    })
    .strict(),
  humanCheck: z.object({ confirmed: z.literal(true) }).strict(),
  exit: z.object({ errorCode: z.enum(LINK_ERROR_CODES).optional() }).strict(),
};

function bearer(req: Request): string {
  const header = req.headers.authorization;
  if (typeof header !== 'string') return '';
  const m = /^Bearer\s+(\S+)$/i.exec(header);
  return m ? m[1] : '';
}

/** Validates the body; answers INVALID_FIELD (paths only: a value such as a password is never echoed). */
function parse<S extends ZodTypeAny>(schema: S, req: Request, res: Response): z.infer<S> | undefined {
  const parsed = schema.safeParse(req.body ?? {});
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues.map((i) => ({
    path: i.path.join('.') || 'body',
    message: i.code === 'unrecognized_keys' ? `unknown field(s): ${i.keys.join(', ')}` : i.message,
  }));
  sendError(res, 'INVALID_FIELD', `${details[0].path}: ${details[0].message}`, details);
  return undefined;
}

function answer<T>(req: Request, res: Response, step: string, result: Result<T>, ok: (value: T) => unknown) {
  const linkSessionId = req.params.id ?? (result.ok ? (result.value as { linkSessionId?: string }).linkSessionId : undefined);
  if (!result.ok) {
    req.log?.info({ linkSessionId, step, errorCode: result.error.code }, 'connect widget step failed');
    const { status, body } = errorEnvelope(res, result.error);
    res.status(status).json(body);
    return;
  }
  req.log?.info({ linkSessionId, step }, 'connect widget step');
  res.json(ok(result.value));
}

const wrap =
  (fn: (req: Request, res: Response) => Promise<void>): RequestHandler =>
  (req, res, next) => {
    fn(req, res).catch(next);
  };

export function connectWidget(services: Services): Router {
  const router = express.Router();
  const page = asset('widget.html');
  const styles = widgetStyles();
  const flow = services.linkSessions;

  router.use((_req, res, next) => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
    next();
  });

  router.get('/', (_req, res) => {
    res.type('html').send(page);
  });
  router.get('/widget.js', (_req, res) => {
    // TypeScript modules (widget/page/), bundled into one script: from the build, or bundled on first use in development.
    res.type('application/javascript').send(pageBundle(PAGE_ENTRIES.widget));
  });
  router.get('/widget.css', (_req, res) => {
    res.type('text/css').send(styles);
  });

  const api = express.Router();
  api.use(...jsonBody(services.config.bodyLimitBytes));
  // A session another API process holds (a paused sign-in, a live browser) is served there (relay/session-relay.ts).
  api.use('/sessions/:id', relaySessionCalls(flow));

  api.post(
    '/sessions',
    wrap(async (req, res) => {
      const body = parse(Bodies.start, req, res);
      if (!body) return;
      answer(req, res, 'start', await flow.start(bearer(req), body.env), (view) => view);
    }),
  );
  api.post(
    '/sessions/:id/consent',
    wrap(async (req, res) => {
      answer(req, res, 'consent', await flow.consent(bearer(req), req.params.id), (view) => view);
    }),
  );
  api.post(
    '/sessions/:id/provider',
    wrap(async (req, res) => {
      const body = parse(Bodies.provider, req, res);
      if (!body) return;
      answer(req, res, 'provider', await flow.selectProvider(bearer(req), req.params.id, body.providerId), (view) => view);
    }),
  );
  api.post(
    '/sessions/:id/credentials',
    wrap(async (req, res) => {
      const body = parse(Bodies.credentials, req, res);
      if (!body) return;
      answer(req, res, 'credentials', await flow.submitCredentials(bearer(req), req.params.id, body), (step) => step);
    }),
  );
  api.post(
    '/sessions/:id/mfa',
    wrap(async (req, res) => {
      const body = parse(Bodies.mfa, req, res);
      if (!body) return;
      answer(req, res, 'mfa', await flow.submitMfa(bearer(req), req.params.id, body.code.replace(/\s+/g, '')), (step) => step);
    }),
  );
  api.post(
    '/sessions/:id/human-check',
    wrap(async (req, res) => {
      const body = parse(Bodies.humanCheck, req, res);
      if (!body) return;
      answer(req, res, 'human-check', await flow.confirmHuman(bearer(req), req.params.id), (step) => step);
    }),
  );
  api.post(
    '/sessions/:id/live/finish',
    wrap(async (req, res) => {
      answer(req, res, 'live-finish', await flow.finishLive(bearer(req), req.params.id), (step) => step);
    }),
  );
  api.post(
    '/sessions/:id/user-action',
    wrap(async (req, res) => {
      const body = parse(Bodies.userAction, req, res);
      if (!body) return;
      answer(req, res, 'user-action', await flow.answerUserAction(bearer(req), req.params.id, body.decision), (step) => step);
    }),
  );
  api.post(
    '/sessions/:id/exit',
    wrap(async (req, res) => {
      const body = parse(Bodies.exit, req, res);
      if (!body) return;
      answer(req, res, 'exit', await flow.exit(bearer(req), req.params.id, body.errorCode), (v) => v);
    }),
  );
  router.use('/api', api);
  return router;
}
