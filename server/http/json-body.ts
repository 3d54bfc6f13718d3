import express, { type RequestHandler } from 'express';
import getRawBody from 'raw-body';
import sjson from 'secure-json-parse';

import { formatPath } from '../../contract/response-format';
import { sendError } from './api-error';

/**
 * PostgreSQL cannot store U+0000 in text or jsonb, nor unpaired UTF-16 surrogates in jsonb: such strings
 * are refused at the edge (on both engines, so they behave alike) instead of failing as a 500 at the insert.
 */
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what this pattern exists to find.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNSTORABLE_MESSAGE = 'must not contain U+0000 or unpaired UTF-16 surrogates';

/**
 * How deep a body may nest. The deepest valid body (agent request parameters, 10 levels, inside the request) is
 * far shallower; anything deeper is refused here, before idempotency fingerprints or validation walk it.
 */
export const BODY_MAX_DEPTH = 64;
const TOO_DEEP_MESSAGE = `must be nested at most ${BODY_MAX_DEPTH} levels deep`;

type BodyProblem = { kind: 'unstorable'; path: (string | number)[] } | { kind: 'too-deep'; path: (string | number)[] };

/**
 * One iterative walk (bodies may nest deeply): the first key or string value holding an unstorable character,
 * or the top-level field under which the body nests deeper than BODY_MAX_DEPTH.
 */
function findProblem(value: unknown): BodyProblem | null {
  interface Frame {
    value: unknown;
    key?: string | number;
    parent?: Frame;
    depth: number;
  }
  const pathOf = (f: Frame | undefined, last?: string | number) => {
    const path: (string | number)[] = last === undefined ? [] : [last];
    for (let p = f; p && p.key !== undefined; p = p.parent) path.unshift(p.key);
    return path;
  };
  const stack: Frame[] = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const v = frame.value;
    if (typeof v === 'string') {
      if (UNSTORABLE.test(v)) return { kind: 'unstorable', path: pathOf(frame) };
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (frame.depth >= BODY_MAX_DEPTH) return { kind: 'too-deep', path: pathOf(frame).slice(0, 1) };
    if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push({ value: item, key: i, parent: frame, depth: frame.depth + 1 }));
    } else {
      for (const [k, child] of Object.entries(v)) {
        if (UNSTORABLE.test(k)) return { kind: 'unstorable', path: pathOf(frame, k) };
        stack.push({ value: child, key: k, parent: frame, depth: frame.depth + 1 });
      }
    }
  }
  return null;
}

/** Content-Type headers that type-is certainly takes for JSON, as clients usually write them. */
const COMMON_JSON_TYPES = new Set([
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=utf-8',
  'application/json; charset=UTF-8',
  'application/json;charset=UTF-8',
]);

/** `application/json` with no parameters, or with charset=utf-8 only. */
function plainUtf8(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i.test(contentType);
}

/**
 * JSON bodies, parsed strictly: only application/json, at most `limit` bytes, and keys that could
 * poison prototypes (__proto__, constructor.prototype) refused anywhere in the document.
 */
export function jsonBody(limit: number): RequestHandler[] {
  const bodyParserText = express.text({ type: () => true, limit });
  // Plain UTF-8 bodies (nearly all) are read by raw-body directly; body-parser, which wraps it with
  // charset and Content-Encoding handling, costs ~50 µs more per request (bench/api.bench.ts) and
  // still reads everything else (gzip, deflate, declared charsets).
  const readText: RequestHandler = (req, res, next) => {
    if (!hasBody(req) || req.headers['content-encoding'] !== undefined || !plainUtf8(req.headers['content-type'])) {
      return bodyParserText(req, res, next);
    }
    getRawBody(req, { length: req.headers['content-length'], limit, encoding: 'utf8' }, (err, text) => {
      if (err) return next(err);
      req.body = text;
      next();
    });
  };
  const hasBody = (req: express.Request) =>
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

  const requireJson: RequestHandler = (req, res, next) => {
    // A NUL in a path parameter (e.g. /api/connections/conn%00x) cannot be looked up in PostgreSQL.
    if (/%00/.test(req.path)) {
      return sendError(res, 'INVALID_FIELD', `params: ${UNSTORABLE_MESSAGE}`, [{ path: 'params', message: UNSTORABLE_MESSAGE }]);
    }
    if (!hasBody(req)) return next();
    // Nearly every client sends one of a few exact headers: known to be JSON without type-is parsing them.
    if (!COMMON_JSON_TYPES.has(req.headers['content-type'] ?? '') && !req.is('application/json')) {
      return sendError(res, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with Content-Type: application/json.');
    }
    next();
  };

  const parse: RequestHandler = (req, res, next) => {
    if (typeof req.body !== 'string') {
      req.body = undefined;
      return next();
    }
    if (req.body.trim() === '') {
      req.body = undefined;
      return next();
    }
    try {
      req.body = sjson.parse(req.body, undefined, { protoAction: 'error', constructorAction: 'error' });
    } catch (err) {
      const message = (err as Error).message ?? '';
      if (/prototype|constructor/i.test(message)) {
        return sendError(res, 'FORBIDDEN_PROPERTY_NAME', 'Property names __proto__ and constructor.prototype are not allowed.');
      }
      return sendError(res, 'MALFORMED_JSON', 'The body is not valid JSON.');
    }
    const bad = findProblem(req.body);
    if (bad) {
      const path = bad.path.length === 0 ? 'body' : formatPath('', bad.path).replace(/^\./, '');
      const message = bad.kind === 'unstorable' ? UNSTORABLE_MESSAGE : TOO_DEEP_MESSAGE;
      return sendError(res, 'INVALID_FIELD', `${path}: ${message}`, [{ path, message }]);
    }
    next();
  };

  return [requireJson, readText, parse];
}
