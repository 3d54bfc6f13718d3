import { createHash } from 'node:crypto';

import express, { type Router } from 'express';
import swaggerUi, { type JsonObject, type SwaggerUiOptions } from 'swagger-ui-express';

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The inline styles of the page swagger-ui-express renders, allowed by hash: the exact blocks and style attributes
 * of this page and nothing an injection could add ('unsafe-inline' would allow any). Its scripts are files already.
 */
function inlineStyleHashes(page: string): string[] {
  const blocks = [...page.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => sha256(m[1]));
  const attributes = [...page.matchAll(/\sstyle="([^"]*)"/g)].map((m) => sha256(m[1]));
  return [...new Set([...blocks, ...(attributes.length > 0 ? ["'unsafe-hashes'", ...new Set(attributes)] : [])])];
}

/**
 * Swagger UI at /docs, locked down: a Content-Security-Policy with scripts from this origin only and requests to
 * this origin only (so `?url=` cannot make it load, or send a typed secret to, another site), no framing
 * (clickjacking the "Authorize" dialog), and no persistAuthorization (a secret typed into "Authorize" would
 * otherwise sit in localStorage on the origin the dashboard shares).
 */
export function apiDocs(openapi: () => JsonObject): Router {
  // Built at the first request: the document takes most of a second to generate, and most processes (and test apps)
  // never serve /docs.
  let docs: Router | undefined;
  const router = express.Router();
  router.use((req, res, next) => (docs ??= docsRouter(openapi()))(req, res, next));
  return router;
}

function docsRouter(openapi: JsonObject): Router {
  // BaseLayout: no top bar, whose "Explore" box loads any URL's spec and whose logo is an inline <style> the CSP refuses.
  const options: SwaggerUiOptions = {
    customSiteTitle: 'AgentLink API',
    swaggerOptions: { persistAuthorization: false, layout: 'BaseLayout' },
  };
  const page = swaggerUi.generateHTML(openapi, options);
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' ${inlineStyleHashes(page).join(' ')}`,
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  const router = express.Router();
  router.use((_req, res, next) => {
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    next();
  });
  router.use(swaggerUi.serve, swaggerUi.setup(openapi, options));
  return router;
}
