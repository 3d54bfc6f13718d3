import { insertRows } from './insert-rows';
import { type DataSource, LessThan, type Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { IdempotencyKeyRecord } from './records';

/** Claimed Idempotency-Keys. Every change is one conditional statement keyed by the claim id (no transactions). */
export class IdempotencyKeyRepository {
  constructor(private readonly repo: Repository<IdempotencyKeyRecord>) {}

  /** Inserts the claim; false when a row with this id already exists (another request holds or held the key). */
  async claim(record: IdempotencyKeyRecord): Promise<boolean> {
    try {
      await insertRows(this.repo, record as unknown as QueryDeepPartialEntity<IdempotencyKeyRecord>);
      return true;
    } catch (err) {
      if (await this.repo.existsBy({ id: record.id })) return false;
      throw err;
    }
  }
  findById(id: string) {
    return this.repo.findOneBy({ id });
  }
  /** Replaces an expired or abandoned row with a new claim; false when someone else replaced it first. */
  async takeOver(previousClaimId: string, record: IdempotencyKeyRecord): Promise<boolean> {
    const { id, ...rest } = record;
    const res = await this.repo.update({ id, claimId: previousClaimId }, rest as unknown as QueryDeepPartialEntity<IdempotencyKeyRecord>);
    return (res.affected ?? 0) === 1;
  }
  async complete(id: string, claimId: string, responseStatus: number, sealedResponse: string) {
    const res = await this.repo.update({ id, claimId, status: 'IN_PROGRESS' }, { status: 'DONE', responseStatus, sealedResponse });
    return (res.affected ?? 0) === 1;
  }
  /** Gives the key up (the request failed on our side) so a retry runs again. */
  async release(id: string, claimId: string) {
    await this.repo.delete({ id, claimId, status: 'IN_PROGRESS' });
  }
  async deleteExpired(now: Date) {
    await this.repo.delete({ expiresAt: LessThan(now) });
  }
}

export interface BucketTake {
  allowed: boolean;
  /** Tokens left after this request (fractional). */
  tokens: number;
}

/**
 * Token buckets in the database, so several API processes share one limit. Taking a token is one
 * conditional UPDATE (refill by elapsed time, capped at the burst, minus one, only if at least one is there):
 * the row lock serialises concurrent callers on PostgreSQL, SQLite serialises writers itself.
 */
export class RateLimitBucketRepository {
  constructor(private readonly ds: DataSource) {}

  private get postgres() {
    return this.ds.options.type === 'postgres';
  }

  /** `$1` placeholders are PostgreSQL's; SQLite reads the same numbered parameters as `?1`. */
  private async run(sql: string, params: unknown[]): Promise<{ affected: number; records: Record<string, unknown>[] }> {
    const text = this.postgres ? sql : sql.replace(/\$(\d+)/g, '?$1');
    const qr = this.ds.createQueryRunner();
    try {
      const res = await qr.query(text, params, true);
      return { affected: res.affected ?? 0, records: Array.isArray(res.records) ? res.records : [] };
    } finally {
      await qr.release();
    }
  }

  async take(key: string, opts: { nowMs: number; ratePerSecond: number; burst: number }): Promise<BucketTake> {
    const params = [key, Math.floor(opts.nowMs), opts.ratePerSecond, opts.burst];
    const now = 'CAST($2 AS BIGINT)';
    const rate = 'CAST($3 AS DOUBLE PRECISION)';
    const burst = 'CAST($4 AS DOUBLE PRECISION)';
    const refill = `(tokens + (CASE WHEN ${now} > updated_at_ms THEN ${now} - updated_at_ms ELSE 0 END) * ${rate} / 1000.0)`;
    const capped = `(CASE WHEN ${refill} > ${burst} THEN ${burst} ELSE ${refill} END)`;
    const update =
      `UPDATE rate_limit_buckets SET tokens = ${capped} - 1, ` +
      `updated_at_ms = CASE WHEN ${now} > updated_at_ms THEN ${now} ELSE updated_at_ms END ` +
      `WHERE bucket_key = $1 AND ${capped} >= 1` +
      (this.postgres ? ' RETURNING tokens' : '');
    let current = 0;
    for (let attempt = 0; attempt < 3; attempt++) {
      const res = await this.run(update, params);
      if (res.affected === 1) {
        const tokens = this.postgres ? Number(res.records[0]?.tokens) : await this.tokens(key, params);
        return { allowed: true, tokens };
      }
      current = await this.tokens(key, params);
      if (Number.isNaN(current)) {
        // First request of this key: a full bucket (the insert of a concurrent first request wins harmlessly).
        await this.run('INSERT INTO rate_limit_buckets (bucket_key, tokens, updated_at_ms) VALUES ($1, $2, $3) ON CONFLICT (bucket_key) DO NOTHING', [
          key,
          opts.burst,
          Math.floor(opts.nowMs),
        ]);
        continue;
      }
      // Empty: denied. (A token seen now was inserted or refilled after the UPDATE looked: take it.)
      if (current < 1) return { allowed: false, tokens: current };
    }
    return { allowed: false, tokens: Math.max(0, current) };
  }

  /** The bucket's tokens as of now (refilled, capped), or NaN when there is no bucket yet. */
  private async tokens(key: string, params: unknown[]): Promise<number> {
    const now = 'CAST($2 AS BIGINT)';
    const rate = 'CAST($3 AS DOUBLE PRECISION)';
    const burst = 'CAST($4 AS DOUBLE PRECISION)';
    const refill = `(tokens + (CASE WHEN ${now} > updated_at_ms THEN ${now} - updated_at_ms ELSE 0 END) * ${rate} / 1000.0)`;
    const res = await this.run(
      `SELECT CASE WHEN ${refill} > ${burst} THEN ${burst} ELSE ${refill} END AS tokens FROM rate_limit_buckets WHERE bucket_key = $1`,
      params,
    );
    const row = res.records[0];
    return row ? Number(row.tokens) : Number.NaN;
  }
}
