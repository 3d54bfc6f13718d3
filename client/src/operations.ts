import type { APIPromise, Page, PagePromise } from './api-promise';
import type { Operations } from './generated/api';
import type { RequestOptions } from './transport';

/** The shapes of the contract's operations as client methods (types only: client.ts builds them, resources.ts wraps them). */
export type Operation = { params: unknown; query: unknown; body: unknown; response: unknown; errorCode: string };

/** `{ params, query, body }` as the operation needs them (ts-rest's shape); query is optional when all its fields are. */
export type OperationArgs<O extends Operation> = ([O['params']] extends [never] ? unknown : { params: O['params'] }) &
  ([O['query']] extends [never] ? unknown : Record<string, never> extends O['query'] ? { query?: O['query'] } : { query: O['query'] }) &
  ([O['body']] extends [never] ? unknown : { body: O['body'] });

type Result<O extends Operation> = O['response'] extends Page<infer Item> ? PagePromise<O['response'], Item> : APIPromise<O['response']>;

export type OperationMethod<O extends Operation> =
  Record<string, never> extends OperationArgs<O>
    ? (args?: OperationArgs<O>, options?: RequestOptions) => Result<O>
    : (args: OperationArgs<O>, options?: RequestOptions) => Result<O>;

/** One method per operation of the contract, grouped as the API reference groups them (its tags): the resources' base. */
export type LegacyClient = {
  [G in keyof Operations]: { [K in keyof Operations[G]]: Operations[G][K] extends Operation ? OperationMethod<Operations[G][K]> : never };
};
