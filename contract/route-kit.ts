import { initContract } from '@ts-rest/core';

import type { ErrorCode } from './error-codes';

/** The one ts-rest contract builder the route groups (contract/routes/) are declared with. */
export const c = initContract();

/** Facts about a route that middleware reads (ts-rest metadata), instead of matching path strings. */
export interface RouteMetadata {
  auth: 'client';
  /** Only callable with sandbox credentials. */
  sandboxOnly?: boolean;
  /**
   * The codes this route's own service can answer with (the layers every request crosses add theirs: see
   * route-errors.ts). The OpenAPI document's `code` enums and the client's error types are built from it.
   */
  errors: readonly ErrorCode[];
}

export const meta = (m: RouteMetadata) => m;
