import { createHash, randomBytes } from 'node:crypto';

import type { IdempotencyKeyRecord } from '../store/records';
import type { IdempotencyKeyRepository } from '../store/repositories/idempotency-key.repository';
import type { Vault } from '../vault/vault';
import type { Clock } from './clock';
import type { Caller } from './context';
import type { DomainError } from './errors';

/** How long a key remembers its first response. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/** An IN_PROGRESS claim older than this is taken as abandoned (its process died before answering). */
const CLAIM_LOCK_MS = 5 * 60 * 1000;
/** How long a duplicate waits for the first request to finish before answering IDEMPOTENCY_REQUEST_IN_PROGRESS. */
const WAIT_FOR_FIRST_MS = 10_000;
const CLEANUP_EVERY_MS = 3600 * 1000;

export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

export interface IdempotencyClaim {
  id: string;
  claimId: string;
}

export type IdempotencyBegin =
  | { kind: 'claimed'; claim: IdempotencyClaim }
  | { kind: 'replay'; status: number; body: unknown }
  | { kind: 'rejected'; error: DomainError };

export interface IdempotentRequest {
  method: string;
  path: string;
  body: unknown;
}

/**
 * JSON with object keys sorted at every level, so the same body always hashes the same. Iterative, with an
 * explicit stack: a recursive walk overflows the call stack on a body nested a few thousand levels deep.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  // Each entry is either a value still to write or a literal piece of punctuation.
  const stack: ({ value: unknown } | { text: string })[] = [{ value }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if ('text' in item) {
      out.push(item.text);
      continue;
    }
    const v = item.value;
    if (Array.isArray(v)) {
      const parts: ({ value: unknown } | { text: string })[] = [{ text: '[' }];
      v.forEach((child, i) => parts.push(...(i > 0 ? [{ text: ',' }] : []), { value: child }));
      parts.push({ text: ']' });
      for (let i = parts.length - 1; i >= 0; i -= 1) stack.push(parts[i]);
    } else if (v && typeof v === 'object') {
      const record = v as Record<string, unknown>;
      const keys = Object.keys(record)
        .sort()
        .filter((k) => record[k] !== undefined);
      const parts: ({ value: unknown } | { text: string })[] = [{ text: '{' }];
      keys.forEach((k, i) => parts.push({ text: `${i > 0 ? ',' : ''}${JSON.stringify(k)}:` }, { value: record[k] }));
      parts.push({ text: '}' });
      for (let i = parts.length - 1; i >= 0; i -= 1) stack.push(parts[i]);
    } else {
      out.push(JSON.stringify(v ?? null));
    }
  }
  return out.join('');
}

export function requestFingerprint(req: IdempotentRequest): string {
  return createHash('sha256')
    .update(`${req.method.toUpperCase()}\n${req.path}\n${canonicalJson(req.body)}`)
    .digest('hex');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Idempotency-Key on POST: the first request with a key claims it (an INSERT on a unique id), runs, and
 * stores its response sealed with the vault; later requests with the same key and the same fingerprint get
 * that response again for 24 hours, and a different fingerprint is IDEMPOTENCY_KEY_REUSED. A duplicate that
 * arrives while the first still runs waits for it (up to 10 s). Responses of our own failures (5xx) are not
 * kept: the claim is released so a retry runs again.
 */
export class IdempotencyService {
  private lastCleanupMs = 0;

  constructor(
    private readonly keys: IdempotencyKeyRepository,
    private readonly clock: Clock,
    private readonly vault: Vault,
  ) {}

  async begin(caller: Caller, key: string, request: IdempotentRequest): Promise<IdempotencyBegin> {
    await this.cleanup();
    const id = createHash('sha256').update(`${caller.organizationId}\n${caller.environment}\n${key}`).digest('hex');
    const fingerprint = requestFingerprint(request);
    const deadline = Date.now() + WAIT_FOR_FIRST_MS;
    let delay = 25;
    for (;;) {
      const fresh = this.freshClaim(id, caller, fingerprint);
      if (await this.keys.claim(fresh)) return { kind: 'claimed', claim: { id, claimId: fresh.claimId } };
      const row = await this.keys.findById(id);
      if (!row) continue; // released meanwhile: claim again
      const now = this.clock.now().getTime();
      const abandoned = row.status === 'IN_PROGRESS' && row.lockedUntil.getTime() <= now;
      if (row.expiresAt.getTime() <= now || abandoned) {
        if (await this.keys.takeOver(row.claimId, fresh)) return { kind: 'claimed', claim: { id, claimId: fresh.claimId } };
        continue;
      }
      if (row.fingerprint !== fingerprint) {
        return {
          kind: 'rejected',
          error: {
            code: 'IDEMPOTENCY_KEY_REUSED',
            message: 'This Idempotency-Key was already used for a different request (method, path or body); use a new key.',
          },
        };
      }
      if (row.status === 'DONE' && row.responseStatus !== null && row.sealedResponse !== null) {
        const body = JSON.parse(this.vault.open(row.sealedResponse, this.associatedData(row.id, row.claimId))) as unknown;
        return { kind: 'replay', status: row.responseStatus, body };
      }
      if (Date.now() >= deadline) {
        return {
          kind: 'rejected',
          error: {
            code: 'IDEMPOTENCY_REQUEST_IN_PROGRESS',
            message: 'A request with this Idempotency-Key is still running; retry later to get its response.',
          },
        };
      }
      await sleep(delay);
      delay = Math.min(delay * 2, 200);
    }
  }

  /** Keeps the response for replays. */
  async complete(claim: IdempotencyClaim, status: number, body: unknown): Promise<void> {
    const sealed = this.vault.seal(JSON.stringify(body ?? null), this.associatedData(claim.id, claim.claimId));
    await this.keys.complete(claim.id, claim.claimId, status, sealed);
  }

  /** Gives the key up: the next request with it runs again. */
  async release(claim: IdempotencyClaim): Promise<void> {
    await this.keys.release(claim.id, claim.claimId);
  }

  private freshClaim(id: string, caller: Caller, fingerprint: string): IdempotencyKeyRecord {
    const now = this.clock.now();
    return {
      id,
      organizationId: caller.organizationId,
      environment: caller.environment,
      claimId: randomBytes(16).toString('hex'),
      fingerprint,
      status: 'IN_PROGRESS',
      responseStatus: null,
      sealedResponse: null,
      createdAt: now,
      lockedUntil: new Date(now.getTime() + CLAIM_LOCK_MS),
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
    };
  }

  /** Binds the sealed response to its row and claim: it cannot be copied onto another key and opened there. */
  private associatedData(id: string, claimId: string) {
    return `idempotency:${id}:${claimId}:response`;
  }

  /** Expired rows are ignored on read and overwritten on claim; this deletes them now and then. */
  private async cleanup() {
    const now = this.clock.now().getTime();
    if (now - this.lastCleanupMs < CLEANUP_EVERY_MS && now >= this.lastCleanupMs) return;
    this.lastCleanupMs = now;
    await this.keys.deleteExpired(new Date(now)).catch(() => undefined);
  }
}
