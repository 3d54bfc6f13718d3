import { extendApi } from '@anatine/zod-openapi';
import { z } from 'zod';

import { EnvironmentSchema, ProviderIdSchema } from './common-schemas';
import { ProviderCategorySchema } from './provider-declaration';

// The providers of the catalogue, and the actions (playbooks) each can run without a model.

export const ProviderSchema = extendApi(
  z.object({
    providerId: ProviderIdSchema,
    name: z.string(),
    slug: z.string(),
    category: ProviderCategorySchema,
    environment: EnvironmentSchema,
    homeUrl: z.string(),
    loginUrl: z.string(),
    allowedOrigins: extendApi(z.array(z.string()), {
      description: "Where the browser may go: host names (on homeUrl's scheme and port) or full origins.",
    }),
    identityProviders: extendApi(z.array(z.string()), { description: 'Origins its single sign-on passes through (sign-in only).' }),
    logo: extendApi(z.string(), {
      description: 'The logo: an SVG as a data: URL, or an https URL; a letter mark of the name (data: URL) when none was declared.',
    }),
    source: extendApi(z.enum(['built-in', 'operator', 'organization']), {
      description: "built-in: shipped with AgentLink; operator: the server's providers file; organization: your own (POST /api/providers).",
    }),
  }),
  { title: 'Provider' },
);
export type Provider = z.infer<typeof ProviderSchema>;

export const ProviderListSchema = z.object({ providers: z.array(ProviderSchema) });

/** One provider with, for your organization's own, the declaration it was created from (to edit and send back). */
export const ProviderDetailSchema = extendApi(
  ProviderSchema.extend({
    declaration: extendApi(z.record(z.unknown()).nullable(), {
      type: 'object',
      description: "Your organization's providers: the stored declaration (ProviderDeclaration). null for built-in and operator ones.",
    }),
  }),
  { title: 'ProviderDetail' },
);
export type ProviderDetail = z.infer<typeof ProviderDetailSchema>;

export const PLAYBOOK_NAME_PATTERN = /^[a-z0-9][a-z0-9.-]{0,99}$/;

export const ProviderActionSchema = extendApi(
  z.object({
    name: extendApi(z.string(), {
      description: 'The playbook: pass it as `playbook` on an agent request to run it without routing.',
      example: 'orbit.send-message',
    }),
    description: z.string(),
    examples: extendApi(z.array(z.string()), {
      description: 'Requests as people write them; an action phrased like these is routed to this playbook with no model.',
    }),
    parameters: extendApi(z.record(z.unknown()), {
      type: 'object',
      description:
        "JSON Schema of its parameters (generated from the playbook's own schema). `x-aliases`: other names a parameter is accepted " +
        'under; `x-from-action`: how it may be written in the action instead ("to Priya Nair", quoted text …). Explicit parameters win.',
    }),
    writes: extendApi(z.boolean(), {
      description: 'Whether it changes anything on the provider (never chosen for a request with mode read).',
    }),
    resultFields: extendApi(z.record(z.unknown()), {
      type: 'object',
      description:
        'What it can fill, in the responseFormat grammar (copy any part as your responseFormat). A list stands for any list of your ' +
        'template; names are matched by meaning too (sent, posted, ok → whether it happened; sentAt, time → when; id; url).',
    }),
  }),
  {
    title: 'ProviderAction',
    example: {
      name: 'orbit.send-message',
      description: 'Sends a direct message on Orbit …',
      examples: ["Send a message to Priya Nair saying 'Running late, sorry!'"],
      parameters: {
        type: 'object',
        properties: { recipient: { type: 'string', 'x-from-action': '"to <person>" …' }, text: { type: 'string' } },
        required: ['recipient', 'text'],
      },
      writes: true,
      resultFields: { sent: 'boolean - whether the message was sent', sentAt: 'datetime? - when it was sent' },
    },
  },
);
export type ProviderAction = z.infer<typeof ProviderActionSchema>;

export const ProviderActionListSchema = extendApi(z.object({ providerId: ProviderIdSchema, actions: z.array(ProviderActionSchema) }), {
  title: 'ProviderActionList',
});
