import type { Operations } from '@agentlink/client';
import type { z } from 'zod';

import { type contract } from '../../contract';
import { contractRoutes } from '../support/contract-routes';

/**
 * The client's types are generated from the OpenAPI document (client/src/generated/api.ts); the server's come from
 * the zod contract. These checks make `npm run typecheck` fail when the two disagree on any operation's success body
 * or request body, and the test below when an operation is missing.
 */
type Contract = typeof contract;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type SuccessBody<R> = R extends { responses: infer Res }
  ? Res[Extract<keyof Res, 200 | 201 | 202>] extends infer S extends z.ZodTypeAny
    ? z.infer<S>
    : never
  : never;
type BodySchema<R> = R extends { body: infer B } ? (B extends z.ZodTypeAny ? z.input<B> : never) : never;

type ResponseChecks = {
  [G in keyof Operations]: {
    [K in keyof Operations[G]]: K extends keyof Contract[G]
      ? Operations[G][K] extends { response: infer Generated }
        ? Same<Generated, SuccessBody<Contract[G][K]>>
        : false
      : false;
  };
};
type BodyChecks = {
  [G in keyof Operations]: {
    [K in keyof Operations[G]]: K extends keyof Contract[G]
      ? Operations[G][K] extends { body: infer Generated }
        ? Same<Generated, BodySchema<Contract[G][K]>>
        : false
      : false;
  };
};
type AllTrue<T> = { [G in keyof T]: { [K in keyof T[G]]: true } };

// A mismatch turns one of these into `false` where `true` is required: a compile error naming the operation.
const responsesAgree: AllTrue<ResponseChecks> extends ResponseChecks ? true : false = true;
const bodiesAgree: AllTrue<BodyChecks> extends BodyChecks ? true : false = true;

describe('client/src/generated/api.ts', () => {
  it('agrees with the zod contract (checked by tsc) and has every operation of it', async () => {
    expect([responsesAgree, bodiesAgree]).toEqual([true, true]);
    const { OPERATIONS } = await import('../../client/src/generated/api');
    const generated = Object.values(OPERATIONS).flatMap((g) => Object.values(g).map((o) => `${o.method} ${o.path}`));
    const routes = contractRoutes().map((r) => `${r.method} ${r.path.replace(/:([A-Za-z]+)/g, '{$1}')}`);
    expect(generated.sort()).toEqual(routes.sort());
  });
});
