import fs from 'node:fs';
import path from 'node:path';

import { buildOpenApiDocument } from './document';

/** npm run openapi: writes openapi/openapi.json from the contract. A test fails when the committed file is stale. */
export const OPENAPI_FILE = path.join(__dirname, 'openapi.json');

export function renderOpenApi(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}

if (require.main === module) {
  fs.writeFileSync(OPENAPI_FILE, renderOpenApi());
  console.log(`wrote ${path.relative(process.cwd(), OPENAPI_FILE)}`);
}
