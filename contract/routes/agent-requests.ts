import { z } from 'zod';

import {
  AgentRequestAcceptedSchema,
  AgentRequestListSchema,
  AgentRequestSchema,
  CreateAgentRequestBodySchema,
  GetAgentRequestQuerySchema,
  ListAgentRequestsQuerySchema,
} from '../agent-request-schemas';
import { c, meta } from '../route-kit';

// Agent requests: create one, read it (waiting for it if asked), list, cancel, decide a held write.

const RequestIdParams = z.object({ requestId: z.string().min(1).max(64) });

export const agentRequestsRoutes = c.router({
  createAgentRequest: {
    method: 'POST',
    path: '/api/agent-requests',
    body: CreateAgentRequestBodySchema,
    responses: { 202: AgentRequestAcceptedSchema },
    summary: 'Create an agent request',
    description:
      'Accepts an action to run on a connected account and queues it; the execution starts when this returns. ' +
      'Read the outcome with GET /api/agent-requests/{requestId}. Errors: INVALID_FIELD (with the exact path of a bad ' +
      'responseFormat leaf), INVALID_ACCESS_TOKEN, ACCESS_TOKEN_ENVIRONMENT_MISMATCH, CONNECTION_LOGIN_REQUIRED (409), ' +
      'STARTING_URL_NOT_ALLOWED; with `playbook`: UNKNOWN_PLAYBOOK, PLAYBOOK_PARAMETERS_MISSING, PLAYBOOK_PARAMETERS_INVALID, ' +
      'PLAYBOOK_WRITES_IN_READ_MODE (each with the path of the field to fix in details).',
    metadata: meta({
      auth: 'client',
      errors: [
        'INVALID_ACCESS_TOKEN',
        'ACCESS_TOKEN_ENVIRONMENT_MISMATCH',
        'CONNECTION_LOGIN_REQUIRED',
        'UNKNOWN_PROVIDER',
        'STARTING_URL_NOT_ALLOWED',
        'UNKNOWN_PLAYBOOK',
        'PLAYBOOK_PARAMETERS_MISSING',
        'PLAYBOOK_PARAMETERS_INVALID',
        'PLAYBOOK_WRITES_IN_READ_MODE',
      ],
    }),
  },
  listAgentRequests: {
    method: 'GET',
    path: '/api/agent-requests',
    query: ListAgentRequestsQuerySchema,
    responses: { 200: AgentRequestListSchema },
    summary: 'List agent requests',
    description:
      'Your agent requests in this environment, newest first, optionally only those with one status. ' +
      'Pages with limit and cursor (pass the nextCursor of the previous page). Errors: INVALID_FIELD, INVALID_CURSOR.',
    metadata: meta({ auth: 'client', errors: ['INVALID_CURSOR'] }),
  },
  getAgentRequest: {
    method: 'GET',
    path: '/api/agent-requests/:requestId',
    pathParams: RequestIdParams,
    query: GetAgentRequestQuerySchema,
    responses: { 200: AgentRequestSchema },
    summary: 'Get an agent request',
    description:
      'The stored record: status, inputs, result or error (error.code of a run: see the run error table), the step trace, ' +
      'which way ran (method), model usage, timestamps. With waitMs the answer is held until the request reaches a final ' +
      'status or waitMs passes, whichever is first. Only the owning organization and environment can read it.',
    metadata: meta({ auth: 'client', errors: ['AGENT_REQUEST_NOT_FOUND'] }),
  },
  cancelAgentRequest: {
    method: 'POST',
    path: '/api/agent-requests/:requestId/cancel',
    pathParams: RequestIdParams,
    body: c.noBody(),
    responses: { 200: AgentRequestSchema },
    summary: 'Cancel an agent request',
    description:
      'A PENDING request becomes CANCELED at once. A RUNNING one is flagged and its worker stops it within about a second; ' +
      'the answer is the record at that moment (read it again, or with waitMs, to see CANCELED). ' +
      'Errors: AGENT_REQUEST_NOT_FOUND, AGENT_REQUEST_ALREADY_FINISHED (409).',
    metadata: meta({ auth: 'client', errors: ['AGENT_REQUEST_NOT_FOUND', 'AGENT_REQUEST_ALREADY_FINISHED'] }),
  },
  decideAgentRequestUserAction: {
    method: 'POST',
    path: '/api/agent-requests/:requestId/user-action',
    pathParams: RequestIdParams,
    body: z
      .object({
        decision: z.enum(['approve', 'deny']).describe('approve: the held write is sent, once; deny: it is never sent (DENIED_BY_USER).'),
        writeId: z
          .string()
          .max(64)
          .optional()
          .describe(
            'userAction.write.id of the write your user decided on. Given, the decision applies to that write only: when the page ' +
              'gave it up and now holds another, the answer is 409 USER_ACTION_OVER and nothing is decided. Recommended.',
          ),
      })
      .strict(),
    responses: { 200: AgentRequestSchema },
    summary: 'Approve or deny the write a paused agent request holds',
    description:
      'Decides, from the app, the held write of a request waiting NEEDS_USER with userAction.reason APPROVAL (as Approve ' +
      'or Deny in the widget would; the trace records it the same way). The answer is the record once the run is past ' +
      'that pause (it waits up to 5 s for the worker to say so): approved, RUNNING (or NEEDS_USER on a later write, or ' +
      'ended); denied, FAILED with DENIED_BY_USER. Safe to retry with an Idempotency-Key. ' +
      'Errors: AGENT_REQUEST_NOT_FOUND, USER_ACTION_OVER (409: no write is held for a decision now: decided, expired, ' +
      'a step done on the page, or the request ended; or writeId names a write no longer held).',
    metadata: meta({ auth: 'client', errors: ['AGENT_REQUEST_NOT_FOUND', 'USER_ACTION_OVER'] }),
  },
});
