import { extendApi } from '@anatine/zod-openapi';
import { z } from 'zod';

import { ClientUserIdSchema, ProviderIdSchema } from './common-schemas';
import { isoDate } from './schema-helpers';

// The sandbox shortcuts: a public token without the widget, and resetting the simulated sites.

export const CreateSandboxPublicTokenBodySchema = extendApi(
  z
    .object({
      providerId: ProviderIdSchema,
      clientUserId: ClientUserIdSchema,
      username: extendApi(z.string().min(1).max(64).optional(), {
        description: 'Sandbox test user to connect as (default user_good).',
      }),
    })
    .strict(),
  { title: 'CreateSandboxPublicTokenRequest' },
);

export const SandboxPublicTokenSchema = z.object({
  publicToken: z.string(),
  expiration: isoDate('When the public token stops being exchangeable.'),
});

export const SandboxResetSchema = z.object({
  reset: z.literal(true),
  providerIds: z.array(ProviderIdSchema),
});
