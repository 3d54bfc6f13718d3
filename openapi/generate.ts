import fs from 'node:fs';
import path from 'node:path';

import { renderClientTypes } from './client-types';
import { buildOpenApiDocument } from './document';

/**
 * npm run openapi: writes openapi/openapi.json from the contract, and from it the types and operation table of
 * @agentlink/client (client/src/generated/api.ts). A test fails when either committed file is stale.
 */
export const OPENAPI_FILE = path.join(__dirname, 'openapi.json');
export const CLIENT_TYPES_FILE = path.join(__dirname, '..', 'client', 'src', 'generated', 'api.ts');

export function renderOpenApi(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}

export function renderClientApi(): string {
  return renderClientTypes(JSON.parse(renderOpenApi()));
}

if (require.main === module) {
  fs.writeFileSync(OPENAPI_FILE, renderOpenApi());
  fs.writeFileSync(CLIENT_TYPES_FILE, renderClientApi());
  for (const file of [OPENAPI_FILE, CLIENT_TYPES_FILE]) console.log(`wrote ${path.relative(process.cwd(), file)}`);
}
