/**
 * The contract's zod schemas, one file per area (the routes in contract/routes/ use them); this module gathers them so
 * that `contract/schemas` stays the one place to import a schema from.
 */
export * from './agent-request-schemas';
export * from './common-schemas';
export * from './connection-schemas';
export * from './link-token-schemas';
export * from './provider-schemas';
export * from './sandbox-schemas';
