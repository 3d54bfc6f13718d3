import fs from 'node:fs';

import { ERROR_CATALOGUE } from '../contract/error-codes';
import { CLIENT_TYPES_FILE, OPENAPI_FILE, renderClientApi, renderOpenApi } from '../openapi/generate';
import { contractRoutes } from './support/contract-routes';

type Doc = {
  paths: Record<string, Record<string, { security?: unknown; operationId?: string; responses?: Record<string, unknown> }>>;
  components: { securitySchemes: Record<string, unknown> };
  info: { description: string };
};

describe('openapi/openapi.json', () => {
  const rendered = renderOpenApi();
  const committed = fs.existsSync(OPENAPI_FILE) ? fs.readFileSync(OPENAPI_FILE, 'utf8') : '';
  const doc = JSON.parse(rendered) as Doc;

  it('is up to date with the contract', () => {
    if (rendered !== committed) {
      throw new Error('openapi/openapi.json is stale: the contract changed. Run `npm run openapi` and commit the result.');
    }
  });

  it('client/src/generated/api.ts (the types of @agentlink/client) is up to date with the document', () => {
    const committedTypes = fs.existsSync(CLIENT_TYPES_FILE) ? fs.readFileSync(CLIENT_TYPES_FILE, 'utf8') : '';
    if (renderClientApi() !== committedTypes) {
      throw new Error('client/src/generated/api.ts is stale: the contract changed. Run `npm run openapi` and commit the result.');
    }
  });

  it('declares the clientId and clientSecret security schemes, and the same pair as HTTP Basic', () => {
    expect(doc.components.securitySchemes).toStrictEqual({
      clientId: { type: 'apiKey', in: 'header', name: 'x-client-id', description: expect.any(String) },
      clientSecret: { type: 'apiKey', in: 'header', name: 'x-client-secret', description: expect.any(String) },
      clientBasic: { type: 'http', scheme: 'basic', description: expect.any(String) },
    });
  });

  const routes = contractRoutes();
  it('the contract has every route of the core', () => {
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining([
        'DELETE /api/connections/:connectionId',
        'GET /api/agent-requests/:requestId',
        'GET /api/connections/:connectionId',
        'GET /api/providers',
        'POST /api/agent-requests',
        'POST /api/connections/public_token/exchange',
        'POST /api/link-token',
        'POST /api/sandbox/public_token/create',
      ]),
    );
  });

  it.each(routes.map((r) => [`${r.method} ${r.path}`, r]))('documents %s, secured by client credentials', (_label, route) => {
    const path = route.path.replace(/:([A-Za-z]+)/g, '{$1}');
    const op = doc.paths[path]?.[route.method.toLowerCase()];
    expect(op).toBeDefined();
    expect(op!.security).toEqual([{ clientId: [], clientSecret: [] }, { clientBasic: [] }]);
    expect(op!.operationId).toEqual(expect.any(String));
    // Every operation authenticates, is rate limited and can fail; the other statuses follow from its codes (openapi-document.test.ts).
    expect(Object.keys(op!.responses ?? {})).toEqual(expect.arrayContaining(['401', '429', '500']));
  });

  it('documents no path the contract lacks', () => {
    const documented = Object.keys(doc.paths).sort();
    const expected = [...new Set(routes.map((r) => r.path.replace(/:([A-Za-z]+)/g, '{$1}')))].sort();
    expect(documented).toEqual(expected);
  });

  it('lists every error code in the description', () => {
    for (const code of Object.keys(ERROR_CATALOGUE)) expect(doc.info.description).toContain(`\`${code}\``);
  });
});
