import type { DataSource } from 'typeorm';

import { type PreparedSql, preparedSql } from '../prepared-sql';

export interface BucketTake {
  allowed: boolean;
  /** Tokens left after this request (fractional). */
  tokens: number;
}

/**
 * Token buckets in the database, so several API processes share one limit. Taking tokens is one
 * conditional UPDATE … RETURNING (refill by elapsed time, capped at the burst, minus n, only if at least
 * n are there): the row lock serialises concurrent callers on PostgreSQL, SQLite serialises writers itself.
 * It runs as a prepared statement (PreparedSql), once per lease of tokens (RateLimitService). The table has no
 * TypeORM entity (nothing reads it but this SQL), hence no BaseRepository.
 */
export class RateLimitBucketRepository {
  private readonly sql: PreparedSql;

  constructor(ds: DataSource) {
    this.sql = preparedSql(ds);
  }

  /**
   * Takes `count` tokens at once if the bucket holds at least that many (a lease, see RateLimitService);
   * otherwise takes none and reports what is there.
   */
  async take(key: string, opts: { nowMs: number; ratePerSecond: number; burst: number; count?: number }): Promise<BucketTake> {
    const count = Math.max(1, Math.floor(opts.count ?? 1));
    const params = [key, Math.floor(opts.nowMs), opts.ratePerSecond, opts.burst, count];
    let current = 0;
    for (let attempt = 0; attempt < 3; attempt++) {
      const res = await this.sql.query<{ tokens: unknown }>(TAKE_SQL, params);
      if (res.rows.length === 1) return { allowed: true, tokens: Number(res.rows[0].tokens) };
      current = await this.tokens(params.slice(0, 4));
      if (Number.isNaN(current)) {
        // First request of this key: a full bucket (the insert of a concurrent first request wins harmlessly).
        await this.sql.query(INSERT_SQL, [key, opts.burst, Math.floor(opts.nowMs)]);
        continue;
      }
      // Too few: denied. (Tokens seen now were inserted or refilled after the UPDATE looked: take them.)
      if (current < count) return { allowed: false, tokens: current };
    }
    return { allowed: false, tokens: Math.max(0, current) };
  }

  /** The bucket's tokens as of now (refilled, capped), or NaN when there is no bucket yet. */
  private async tokens(params: unknown[]): Promise<number> {
    const res = await this.sql.query<{ tokens: unknown }>(PEEK_SQL, params);
    const row = res.rows[0];
    return row ? Number(row.tokens) : Number.NaN;
  }
}

// $1 key, $2 now (ms), $3 tokens per second, $4 burst, $5 tokens to take. The same text runs on both engines.
const NOW = 'CAST($2 AS BIGINT)';
const RATE = 'CAST($3 AS DOUBLE PRECISION)';
const BURST = 'CAST($4 AS DOUBLE PRECISION)';
const REFILLED = `(tokens + (CASE WHEN ${NOW} > updated_at_ms THEN ${NOW} - updated_at_ms ELSE 0 END) * ${RATE} / 1000.0)`;
const CAPPED = `(CASE WHEN ${REFILLED} > ${BURST} THEN ${BURST} ELSE ${REFILLED} END)`;
const COUNT = 'CAST($5 AS DOUBLE PRECISION)';
const TAKE_SQL =
  `UPDATE rate_limit_buckets SET tokens = ${CAPPED} - ${COUNT}, ` +
  `updated_at_ms = CASE WHEN ${NOW} > updated_at_ms THEN ${NOW} ELSE updated_at_ms END ` +
  `WHERE bucket_key = $1 AND ${CAPPED} >= ${COUNT} RETURNING tokens`;
const PEEK_SQL = `SELECT ${CAPPED} AS tokens FROM rate_limit_buckets WHERE bucket_key = $1`;
const INSERT_SQL =
  'INSERT INTO rate_limit_buckets (bucket_key, tokens, updated_at_ms) VALUES ($1, $2, $3) ON CONFLICT (bucket_key) DO NOTHING';
