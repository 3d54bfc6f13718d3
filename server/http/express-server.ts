import http from 'node:http';

import type { Express } from 'express';

/**
 * An http.Server for an Express app whose requests and responses are created with the app's own
 * prototypes (app.request / app.response).
 *
 * Express re-points the prototype of every request and response at those objects
 * (Object.setPrototypeOf in its init middleware). V8 then gives each of them a new hidden class: about
 * 6 KB per request promoted to the old generation, and young-generation pauses of 5–9 ms instead of
 * 0.5 ms, which were most of the p99 latency in bench/api.bench.ts. Created with those prototypes
 * already, Express's call changes nothing and nothing is promoted. (Sub-apps mounted with app.use still
 * switch prototypes for their own requests; the API is not one.)
 */
export function createExpressServer(app: Express, options: http.ServerOptions = {}): http.Server {
  const appRequest = (app as unknown as { request: object }).request;
  const appResponse = (app as unknown as { response: object }).response;
  const IncomingMessage = http.IncomingMessage as unknown as (this: unknown, ...args: unknown[]) => void;
  const ServerResponse = http.ServerResponse as unknown as (this: unknown, ...args: unknown[]) => void;
  // Function constructors rather than classes: the prototypes must be app.request and app.response themselves.
  function AppRequest(this: unknown, ...args: unknown[]) {
    IncomingMessage.apply(this, args);
  }
  AppRequest.prototype = appRequest;
  function AppResponse(this: unknown, ...args: unknown[]) {
    ServerResponse.apply(this, args);
  }
  AppResponse.prototype = appResponse;
  return http.createServer(
    {
      ...options,
      IncomingMessage: AppRequest as unknown as typeof http.IncomingMessage,
      ServerResponse: AppResponse as unknown as typeof http.ServerResponse,
    },
    app,
  );
}
