import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

import { AgentLinkApiError, type AgentLinkClient, type APIPromise, createAgentLinkClient } from '@agentlink/client';
import express, { type Request, type Response } from 'express';

/**
 * A caller's backend relay (spec 4.5): the browser talks to this server, this server talks to AgentLink with the
 * organization's client credentials, which never reach the browser.
 *
 *   POST /api/link-token      { clientUserId, providerId? } → { linkToken }
 *   POST /api/exchange        { publicToken }               → the exchange response body as received
 *   POST /api/agent-requests  { accessToken, action, … }    → the agent-request response body as received (202)
 *   GET  /api/agent-requests/:requestId                     → the agent request (to poll its result)
 *   GET  /api/providers                                     → the provider catalogue (the app uses it for URLs)
 *   GET  /                                                  → the example React app (examples/web)
 *
 * AgentLink's errors pass through with their status and envelope. This is an example: a real backend takes
 * clientUserId from its own session and keeps the access token on the server instead of handing it to the
 * browser, as the spec's relay does here.
 *
 * Environment: AGENTLINK_CLIENT_ID, AGENTLINK_CLIENT_SECRET, AGENTLINK_BASE_URL (default http://localhost:4000),
 * PORT (default 3000).
 */
export interface RelayEnv {
  AGENTLINK_CLIENT_ID?: string;
  AGENTLINK_CLIENT_SECRET?: string;
  AGENTLINK_BASE_URL?: string;
  [key: string]: string | undefined;
}

export interface RelayConfig {
  clientId: string;
  clientSecret: string;
  /** Where AgentLink runs, for this server and for the browser (the widget is {baseUrl}/link). */
  baseUrl: string;
}

export interface RelayOptions {
  /** Folder with index.html and app.js of the web app; default examples/web/dist. */
  webDir?: string;
}

export const DEFAULT_WEB_DIR = path.join(__dirname, '..', 'web', 'dist');

export class RelayConfigError extends Error {}

export function readRelayConfig(env: RelayEnv): RelayConfig {
  const missing = ['AGENTLINK_CLIENT_ID', 'AGENTLINK_CLIENT_SECRET'].filter((k) => !env[k]);
  if (missing.length > 0) {
    throw new RelayConfigError(
      `${missing.join(' and ')} must be set: create an organization with ` +
        '`npm run --silent agentlink -- org create --name Demo --json` and use its clientId and sandbox secret.',
    );
  }
  const baseUrl = (env.AGENTLINK_BASE_URL || 'http://localhost:4000').replace(/\/+$/, '');
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new RelayConfigError(`AGENTLINK_BASE_URL must be an http(s) address, got ${JSON.stringify(env.AGENTLINK_BASE_URL)}`);
  }
  return { clientId: env.AGENTLINK_CLIENT_ID!, clientSecret: env.AGENTLINK_CLIENT_SECRET!, baseUrl };
}

/**
 * Calls AgentLink and answers with what it said: the body and status of a success, AgentLink's error envelope with its
 * status, and its request id for support either way. No answer at all (after the client's retries) becomes a 502.
 */
async function relay<T>(res: Response, call: () => APIPromise<T>, onOk?: (body: T) => unknown) {
  try {
    const { data, status, requestId } = await call().withResponse();
    if (requestId) res.setHeader('x-agentlink-request-id', requestId);
    res.status(status).json(onOk ? onOk(data) : data);
  } catch (err) {
    if (err instanceof AgentLinkApiError) {
      if (err.requestId) res.setHeader('x-agentlink-request-id', err.requestId);
      const { type, code, message, requestId, details } = err;
      res.status(err.status).json({ error: { type, code, message, requestId, ...(details === undefined ? {} : { details }) } });
      return;
    }
    res.status(502).json({
      error: {
        type: 'API_ERROR',
        code: 'AGENTLINK_UNREACHABLE',
        message: `The relay could not reach AgentLink: ${(err as Error).message}`,
      },
    });
  }
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function createRelayApp(env: RelayEnv, options: RelayOptions = {}): express.Express {
  const config = readRelayConfig(env);
  const webDir = options.webDir ?? DEFAULT_WEB_DIR;
  const agentlink: AgentLinkClient = createAgentLinkClient(config);
  const app = express();
  app.disable('x-powered-by');
  app.use('/api', express.json({ limit: '256kb' }));

  const body = (req: Request): Record<string, unknown> =>
    typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};

  // 4.1: returns linkToken only.
  app.post('/api/link-token', (req, res) => {
    const { clientUserId, providerId } = body(req);
    return relay(
      res,
      () =>
        agentlink.link.createLinkToken({
          body: { clientUserId, ...(providerId === undefined ? {} : { providerId }) } as { clientUserId: string; providerId?: string },
        }),
      ({ linkToken }) => ({ linkToken }),
    );
  });

  // 4.2: the body as received.
  app.post('/api/exchange', (req, res) =>
    relay(res, () => agentlink.connections.exchangePublicToken({ body: { publicToken: body(req).publicToken as string } })),
  );

  // 4.3: the request body goes on unchanged, the response body comes back as received.
  app.post('/api/agent-requests', (req, res) =>
    relay(res, () =>
      agentlink.agentRequests.createAgentRequest({
        body: req.body as Parameters<AgentLinkClient['agentRequests']['createAgentRequest']>[0]['body'],
      }),
    ),
  );

  app.get('/api/agent-requests/:requestId', (req, res) =>
    relay(res, () => agentlink.agentRequests.getAgentRequest({ params: { requestId: req.params.requestId } })),
  );

  app.get('/api/providers', (_req, res) => relay(res, () => agentlink.providers.listProviders()));

  app.use('/api', (_req, res) => {
    res.status(404).json({ error: { type: 'NOT_FOUND', code: 'ROUTE_NOT_FOUND', message: 'No such relay route.' } });
  });

  // The web app: index.html gets AgentLink's address (the browser opens {baseUrl}/link); app.js is the bundle.
  app.get('/', (_req, res) => {
    const file = path.join(webDir, 'index.html');
    if (!fs.existsSync(file)) {
      res.status(503).type('text/plain').send('The example web app is not built: run `npm run example:build` (or `npm run example`).');
      return;
    }
    const html = fs.readFileSync(file, 'utf8').replace(/%AGENTLINK_BASE_URL%/g, escapeHtml(config.baseUrl));
    res.type('html').setHeader('cache-control', 'no-store').send(html);
  });
  app.use(express.static(webDir, { index: false }));

  return app;
}

async function main() {
  let app: express.Express;
  try {
    app = createRelayApp(process.env);
  } catch (err) {
    if (err instanceof RelayConfigError) {
      process.stderr.write(`relay: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const port = Number(process.env.PORT || 3000);
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(port, resolve));
  const { baseUrl } = readRelayConfig(process.env);
  process.stdout.write(`Example app and relay: http://localhost:${port}/  (AgentLink at ${baseUrl})\n`);
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
