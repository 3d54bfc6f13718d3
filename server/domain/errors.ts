/**
 * Expected failures are values, not exceptions (Nango's services): a service returns a Result whose
 * error carries a stable code from this list; the HTTP layer maps each code to a status in one table.
 */
import type { ErrorCode } from '../../contract/error-codes';

export type { ErrorCode };

export interface DomainError {
  code: ErrorCode;
  message: string;
  details?: unknown;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: DomainError };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T = never>(code: ErrorCode, message: string, details?: unknown): Result<T> => ({
  ok: false,
  error: details === undefined ? { code, message } : { code, message, details },
});
