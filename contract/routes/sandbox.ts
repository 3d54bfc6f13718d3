import { c, meta } from '../route-kit';
import { CreateSandboxPublicTokenBodySchema, SandboxPublicTokenSchema, SandboxResetSchema } from '../sandbox-schemas';

// Sandbox shortcuts (sandbox credentials only).

export const sandboxRoutes = c.router({
  createSandboxPublicToken: {
    method: 'POST',
    path: '/api/sandbox/public_token/create',
    body: CreateSandboxPublicTokenBodySchema,
    responses: { 200: SandboxPublicTokenSchema },
    summary: 'Create a public token without the widget (sandbox only)',
    description:
      'Connects a sandbox test user (default user_good) to a sandbox provider and returns a public token, ' +
      'so an integration can be tested end to end without the connect widget. Errors: SANDBOX_ONLY, UNKNOWN_PROVIDER, UNKNOWN_TEST_USER.',
    metadata: meta({ auth: 'client', sandboxOnly: true, errors: ['UNKNOWN_PROVIDER', 'UNKNOWN_TEST_USER', 'SANDBOX_LOGIN_FAILED'] }),
  },
  resetSandbox: {
    method: 'POST',
    path: '/api/sandbox/reset',
    body: c.noBody(),
    responses: { 200: SandboxResetSchema },
    summary: "Reset your organization's sandbox site data (sandbox only)",
    description:
      "Deletes everything your organization's test users created on the simulated provider sites (posts, repositories, messages …); " +
      'the next visit starts again from the seed content. Login sessions and connections stay valid. Errors: SANDBOX_ONLY.',
    metadata: meta({ auth: 'client', sandboxOnly: true, errors: [] }),
  },
});
