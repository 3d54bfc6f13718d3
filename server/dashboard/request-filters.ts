import type { Request } from 'express';

import type { AgentRequestListQuery } from '../domain/agent-requests.service';
import type { AgentRequestStatus } from '../store';
import { envOf, queryString } from './dashboard-kit';
import { type RequestFilters, STATUSES } from './requests.views';

/** The request list's filters as the page shows them, and as the service's list query (null: a date is not YYYY-MM-DD). */
export interface ParsedRequestFilters {
  filters: RequestFilters;
  query: Omit<AgentRequestListQuery, 'limit' | 'cursor'> | null;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The start of a UTC day written YYYY-MM-DD (plus some days); undefined when absent, null when malformed. */
function dayStart(s: string | undefined, plusDays = 0): Date | undefined | null {
  if (!s) return undefined;
  if (!DATE.test(s)) return null;
  const d = new Date(`${s}T00:00:00.000Z`);
  if (Number.isNaN(d.getTime())) return null;
  return new Date(d.getTime() + plusDays * 86_400_000);
}

export function parseRequestFilters(req: Request): ParsedRequestFilters {
  const status = queryString(req, 'status');
  const filters: RequestFilters = {
    env: envOf(req.query.env) ?? 'sandbox',
    status: status && (STATUSES as readonly string[]).includes(status) ? status : undefined,
    provider: queryString(req, 'provider'),
    from: queryString(req, 'from'),
    to: queryString(req, 'to'),
  };
  // "to" is inclusive on the page: created before the start of the next day.
  const createdFrom = dayStart(filters.from);
  const createdBefore = dayStart(filters.to, 1);
  if (createdFrom === null || createdBefore === null) return { filters, query: null };
  return {
    filters,
    query: {
      ...(filters.status ? { status: filters.status as AgentRequestStatus } : {}),
      ...(filters.provider ? { providerId: filters.provider } : {}),
      ...(createdFrom ? { createdFrom } : {}),
      ...(createdBefore ? { createdBefore } : {}),
    },
  };
}
