import { z } from 'zod';

import { ProviderDeclarationSchema, UpdateProviderBodySchema } from '../provider-declaration';
import { ProviderActionListSchema, ProviderDetailSchema, ProviderListSchema } from '../provider-schemas';
import { c, meta } from '../route-kit';

// The provider catalogue: built-in, operator and your own providers, and the actions each runs without a model.

const ProviderIdParams = z.object({ providerId: z.string().min(1).max(64) });

export const providersRoutes = c.router({
  listProviders: {
    method: 'GET',
    path: '/api/providers',
    responses: { 200: ProviderListSchema },
    summary: 'List the providers of your environment',
    description:
      "The catalogue of providers that the credentials' environment can connect to: the built-in ones, the operator's, and your " +
      "organization's own for this environment (source tells which).",
    metadata: meta({ auth: 'client', errors: [] }),
  },
  createProvider: {
    method: 'POST',
    path: '/api/providers',
    body: ProviderDeclarationSchema,
    responses: { 201: ProviderDetailSchema },
    summary: 'Declare a private provider',
    description:
      'Adds a website your organization can connect to, in the environment of the credentials and visible only there: a ' +
      'declaration (where it signs in, which origins the browser may reach, how a signed-in session is recognised, an optional ' +
      'login recipe). The server assigns providerId. Errors: INVALID_FIELD (the shape; details lists each path), ' +
      'PROVIDER_DECLARATION_INVALID (non-public addresses in production, another environment), PROVIDER_SLUG_TAKEN, PROVIDER_LIMIT.',
    metadata: meta({
      auth: 'client',
      errors: ['INVALID_FIELD', 'PROVIDER_DECLARATION_INVALID', 'PROVIDER_SLUG_TAKEN', 'PROVIDER_LIMIT'],
    }),
  },
  getProvider: {
    method: 'GET',
    path: '/api/providers/:providerId',
    pathParams: ProviderIdParams,
    responses: { 200: ProviderDetailSchema },
    summary: 'Get a provider',
    description: 'One provider of the catalogue (built-in, operator or your own). Errors: PROVIDER_NOT_FOUND.',
    metadata: meta({ auth: 'client', errors: ['PROVIDER_NOT_FOUND'] }),
  },
  updateProvider: {
    method: 'PATCH',
    path: '/api/providers/:providerId',
    pathParams: ProviderIdParams,
    body: UpdateProviderBodySchema,
    responses: { 200: ProviderDetailSchema },
    summary: 'Change a private provider',
    description:
      "Replaces the given top-level fields of your organization's provider; the result is validated whole. Errors: " +
      'PROVIDER_NOT_FOUND, PROVIDER_NOT_EDITABLE (built-in or operator), PROVIDER_DECLARATION_INVALID, PROVIDER_SLUG_TAKEN.',
    metadata: meta({
      auth: 'client',
      errors: ['PROVIDER_NOT_FOUND', 'PROVIDER_NOT_EDITABLE', 'PROVIDER_DECLARATION_INVALID', 'PROVIDER_SLUG_TAKEN'],
    }),
  },
  deleteProvider: {
    method: 'DELETE',
    path: '/api/providers/:providerId',
    pathParams: ProviderIdParams,
    body: c.noBody(),
    responses: { 200: ProviderDetailSchema },
    summary: 'Delete a private provider',
    description:
      "Deletes your organization's provider and returns it. Refused while it has connections that are not revoked, like an " +
      'in-use object elsewhere: they hold sessions and agent requests that would lose their egress policy. Errors: ' +
      'PROVIDER_NOT_FOUND, PROVIDER_NOT_EDITABLE, PROVIDER_IN_USE.',
    metadata: meta({ auth: 'client', errors: ['PROVIDER_NOT_FOUND', 'PROVIDER_NOT_EDITABLE', 'PROVIDER_IN_USE'] }),
  },
  listProviderActions: {
    method: 'GET',
    path: '/api/providers/:providerId/actions',
    pathParams: ProviderIdParams,
    responses: { 200: ProviderActionListSchema },
    summary: 'List the actions a provider can run without a model',
    description:
      'The action catalogue: each playbook (a tested routine) of the provider, with its description, example requests, parameters ' +
      'as JSON Schema, whether it writes, and the result fields it can fill. An agent request whose action is phrased like an ' +
      'example runs that playbook with no model configured; or name it with `playbook`. Errors: PROVIDER_NOT_FOUND.',
    metadata: meta({ auth: 'client', errors: ['PROVIDER_NOT_FOUND'] }),
  },
});
