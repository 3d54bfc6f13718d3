import request from 'supertest';

import type { ErrorCode } from '../../contract/error-codes';
import type { TestApp } from '../support/app';
import {
  type Connected,
  connectSandbox,
  createOrg,
  type ExpectedError,
  expectError as expectErrorBase,
  type TestOrg,
} from '../support/helpers';

type Res = request.Response;

/**
 * What the error envelope tests (errors*.api.test.ts) share: expectError, which also notes each code it saw (so
 * errors.api.test.ts can check it covered every core code), a raw request with headers of one's own, and the
 * organization with a sandbox connection the calls are made as.
 */
export function errorEnvelope(t: TestApp) {
  const seen = new Set<ErrorCode>();
  const expectError = (res: Res, code: ErrorCode, expected?: ExpectedError) => {
    seen.add(code);
    return expectErrorBase(res, code, expected);
  };
  const raw = (method: 'post' | 'get', path: string, headers: Record<string, string>) => request(t.server)[method](path).set(headers);
  return { seen, expectError, raw };
}

/** The organization of the error envelope tests, and its sandbox connection (for a file's beforeAll). */
export async function errorsOrg(t: TestApp): Promise<{ org: TestOrg; conn: Connected }> {
  const org = await createOrg(t, 'Errors Co');
  const conn = await connectSandbox(t, org, { clientUserId: 'err-user' });
  return { org, conn };
}
