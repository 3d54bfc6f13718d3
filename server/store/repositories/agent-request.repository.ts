import { In } from 'typeorm';

import { GroupRunner } from '../group-runner';
import type { AgentAttempt, AgentRequestRecord, AgentRequestStatus } from '../records';
import { asRow, type KeysetPage, type KeysetPosition, type Owner, RecordRepository } from './base.repository';

export type AgentRequestPage = KeysetPage<AgentRequestRecord>;

const GRANTED_SQL =
  'EXISTS (SELECT 1 FROM access_tokens t JOIN connections c ON c.id = t.connection_id WHERE t.token_hash = $1 AND t.revoked_at IS NULL ' +
  "AND t.organization_id = $2 AND t.environment = $3 AND c.id = $4 AND c.status = 'ACTIVE')";

/** The most agent requests one grouped insert writes (28 parameters a row, far under SQLite's 32766). */
const GRANTED_INSERTS_MAX = 32;

/** The final state a worker (or the lease sweeper) writes. */
export type AgentRequestFinal = Pick<AgentRequestRecord, 'status' | 'result' | 'error' | 'completedAt' | 'executionTimeMs'> &
  Partial<Pick<AgentRequestRecord, 'trace' | 'method' | 'modelUsage' | 'warnings'>>;

/** A partial agent request row for UPDATE (free-form JSON columns defeat TypeORM's deep-partial type). */
const patchOf = asRow<AgentRequestRecord>;

/** The statuses in which a worker holds the request (its lease): running, or waiting for the end user with its page kept. */
const HELD: AgentRequestStatus[] = ['RUNNING', 'NEEDS_USER'];
const HELD_STATUS = { property: 'status', values: HELD } as const;
/** A stored user decision (agent_requests.user_decision) once its worker settled it: the decision, prefixed. */
const APPLIED = 'applied:';
const IGNORED = 'ignored:';
/** A stored decision the worker settled (an earlier pause's answer, kept for its caller): no decision on the open ask. */
const SETTLED_SQL = `(user_decision LIKE '${APPLIED}%' OR user_decision LIKE '${IGNORED}%')`;
const isSettled = (decision: string) => decision.startsWith(APPLIED) || decision.startsWith(IGNORED);

/** What a waiting reader polls: one column, through a prepared statement. */
const STATUS_SQL = 'SELECT status FROM agent_requests WHERE id = $1';

const CLAIMABLE =
  "(r.status = 'PENDING' OR (r.status = 'RUNNING' AND r.lease_expires_at < :now AND r.attempts < :max AND r.cancel_requested_at IS NULL))";

/**
 * The claim's note in the attempt log: the entries so far, minus one with the same attempt number (a released attempt
 * does not count, so its number comes again), plus this attempt. In SQL so the claim stays one statement; `attempts`
 * and `attempt_log` are the row's values before the UPDATE; $6 is the worker, $7 the start time (ISO text).
 */
const NOTE_ATTEMPT_PG =
  "COALESCE(jsonb_path_query_array(attempt_log, '$[*] ? (@.attempt != $n)', jsonb_build_object('n', attempts + 1)), '[]'::jsonb) || " +
  "jsonb_build_array(jsonb_build_object('attempt', attempts + 1, 'worker', CAST($6 AS text), 'startedAt', CAST($7 AS text)))";
const NOTE_ATTEMPT_SQLITE =
  "json_insert(COALESCE((SELECT json_group_array(json(e.value)) FROM json_each(attempt_log) e WHERE e.type = 'object' AND " +
  "json_extract(e.value, '$.attempt') IS NOT attempts + 1), '[]'), '$[#]', json_object('attempt', attempts + 1, 'worker', $6, 'startedAt', $7))";

/**
 * Agent requests are also the queue's source of truth: a worker owns a row while `lease_owner` is its id
 * and `lease_expires_at` is in the future. Every transition is one conditional UPDATE.
 */
export class AgentRequestRepository extends RecordRepository<AgentRequestRecord> {
  /**
   * Inserts the request only if, at that moment, the access token (by hash) is unrevoked, belongs to the
   * record's organization and environment, and its connection is the record's and ACTIVE: one statement
   * instead of a lookup and an insert. False when any of that does not hold (nothing was written).
   */
  insertIfGranted(record: AgentRequestRecord, tokenHash: string): Promise<boolean> {
    const granted = { record, params: [tokenHash, record.organizationId, record.environment, record.connectionId] };
    if (this.sql.dialect === 'postgres') return this.table.insertWhere(record, GRANTED_SQL, granted.params);
    return this.grantedInserts.submit(granted);
  }

  /**
   * On SQLite, the inserts of requests accepted at the same time go as one statement (group commit, see GroupRunner):
   * each row keeps its own condition, checked when the statement runs. Should a group fail as a whole, each of its
   * requests is inserted on its own, so that an error is answered to the request that caused it only.
   */
  private readonly grantedInserts = new GroupRunner<{ record: AgentRequestRecord; params: unknown[] }, boolean>(async (group) => {
    const one = (g: (typeof group)[number]) => this.table.insertWhere(g.record, GRANTED_SQL, g.params);
    if (group.length > 1) {
      try {
        const inserted = await this.table.insertWhereMany(
          group.map((g) => g.record),
          GRANTED_SQL,
          group.map((g) => g.params),
        );
        return inserted.map((value) => ({ status: 'fulfilled', value }));
      } catch {
        // Below: one by one, so the error reaches only the request that causes it.
      }
    }
    return Promise.allSettled(group.map(one));
  }, GRANTED_INSERTS_MAX);
  findOwned(id: string, owner: Owner) {
    return this.findOneBy({ id, organizationId: owner.organizationId, environment: owner.environment });
  }
  findById(id: string) {
    return this.findOneBy({ id });
  }
  /** Only the status: what a waiting reader checks between its reads of the whole row (no JSON columns hydrated). */
  async statusOf(id: string): Promise<AgentRequestRecord['status'] | null> {
    const { rows } = await this.sql.query<{ status: string }>(STATUS_SQL, [id]);
    return (rows[0]?.status as AgentRequestRecord['status'] | undefined) ?? null;
  }

  /** The statuses of these requests, by id, in one statement (the shared watch of waiting readers, status-watch.ts). */
  async statusesOf(ids: readonly string[]): Promise<Map<string, AgentRequestStatus>> {
    const sql = `SELECT id, status FROM agent_requests WHERE id IN (${ids.map((_, i) => `$${i + 1}`).join(', ')})`;
    const { rows } = await this.sql.query<{ id: string; status: AgentRequestStatus }>(sql, [...ids]);
    return new Map(rows.map((r) => [r.id, r.status]));
  }

  /** Newest first, one keyset page after the last record of the previous page. */
  listOwned(
    owner: Owner,
    opts: {
      status?: string;
      limit: number;
      after?: KeysetPosition;
      /** Dashboard filters: one provider, and created in [createdFrom, createdBefore). */
      providerId?: string;
      /** A connection's page lists that connection's requests. */
      connectionId?: string;
      createdFrom?: Date;
      createdBefore?: Date;
    },
  ): Promise<AgentRequestPage> {
    const qb = this.repo
      .createQueryBuilder('r')
      .where('r.organization_id = :org AND r.environment = :env', { org: owner.organizationId, env: owner.environment });
    if (opts.status) qb.andWhere('r.status = :status', { status: opts.status });
    if (opts.providerId) qb.andWhere('r.provider_id = :provider', { provider: opts.providerId });
    if (opts.connectionId) qb.andWhere('r.connection_id = :connection', { connection: opts.connectionId });
    if (opts.createdFrom) qb.andWhere('r.created_at >= :createdFrom', { createdFrom: opts.createdFrom });
    if (opts.createdBefore) qb.andWhere('r.created_at < :createdBefore', { createdBefore: opts.createdBefore });
    return this.keysetPage(qb, opts);
  }

  /**
   * Running requests whose worker stopped renewing its lease and that may run again (the ones a queue with jobs must
   * send again; waiting ones have theirs).
   */
  async expiredLeases(now: Date, maxAttempts: number, limit: number): Promise<string[]> {
    const rows = await this.repo
      .createQueryBuilder('r')
      .select('r.id', 'id')
      .where("r.status = 'RUNNING' AND r.lease_expires_at < :now AND r.attempts < :max AND r.cancel_requested_at IS NULL", {
        now,
        max: maxAttempts,
      })
      .orderBy('r.created_at', 'ASC')
      .limit(limit)
      .getRawMany<{ id: string }>();
    return rows.map((r) => r.id);
  }

  /** Requests a worker may claim: waiting ones, and running ones whose worker stopped renewing its lease. */
  async claimable(now: Date, maxAttempts: number, limit: number): Promise<string[]> {
    const rows = await this.repo
      .createQueryBuilder('r')
      .select('r.id', 'id')
      .where(CLAIMABLE, { now, max: maxAttempts })
      .orderBy('r.created_at', 'ASC')
      .limit(limit)
      .getRawMany<{ id: string }>();
    return rows.map((r) => r.id);
  }

  /** Takes the request for `owner` until `leaseUntil`; false when another worker has it or it ended. */
  async claim(id: string, owner: string, now: Date, leaseUntil: Date, maxAttempts: number): Promise<boolean> {
    return (await this.claimRecord(id, owner, now, leaseUntil, maxAttempts)) !== null;
  }

  /**
   * The claim as one statement: takes the request for `owner` until `leaseUntil`, counts the attempt, notes it in the
   * attempt log (which worker, since when: on record before the run starts, so a worker that dies is named) and answers
   * the row as it is now; null when another worker has it or it ended. The claim, the note and the read used to be
   * three round trips in a row before every run (issue #26, bench:scale).
   */
  async claimRecord(id: string, owner: string, now: Date, leaseUntil: Date, maxAttempts: number): Promise<AgentRequestRecord | null> {
    const [row] = await this.table.updateReturning(
      "status = 'RUNNING', lease_owner = $2, lease_expires_at = $3, started_at = $4, attempts = attempts + 1, " +
        `attempt_log = ${this.sql.dialect === 'postgres' ? NOTE_ATTEMPT_PG : NOTE_ATTEMPT_SQLITE}`,
      "id = $1 AND (status = 'PENDING' OR (status = 'RUNNING' AND lease_expires_at < $4 AND attempts < $5 AND cancel_requested_at IS NULL))",
      [
        id,
        owner,
        this.table.param('leaseExpiresAt', leaseUntil),
        this.table.param('startedAt', now),
        maxAttempts,
        owner,
        now.toISOString(),
      ],
    );
    return row ?? null;
  }

  /**
   * The heartbeat of a run, one statement: extends the lease and answers whether a cancel was asked meanwhile (by any
   * process), and a decision on its open ask stored by another process (`recordUserDecision`); null when the worker
   * lost the lease (recovered by another worker, or finished elsewhere).
   */
  async heartbeat(id: string, owner: string, leaseUntil: Date): Promise<{ cancelRequested: boolean; userDecision: string | null } | null> {
    const { rows } = await this.sql.query<{ cancel_requested_at: unknown; user_decision: string | null }>(
      "UPDATE agent_requests SET lease_expires_at = $1 WHERE id = $2 AND lease_owner = $3 AND status IN ('RUNNING', 'NEEDS_USER') " +
        'RETURNING cancel_requested_at, user_decision',
      [this.table.param('leaseExpiresAt', leaseUntil), id, owner],
    );
    const row = rows[0];
    if (rows.length !== 1 || !row) return null;
    // A decision the worker already settled (applied or ignored) is the deciding process's answer, not news for it.
    const decision = row.user_decision ?? null;
    return { cancelRequested: row.cancel_requested_at != null, userDecision: decision && !isSettled(decision) ? decision : null };
  }

  /**
   * RUNNING → NEEDS_USER, by the worker holding it: the run waits for its end user (the lease stays, renewed while it
   * waits). A decision the worker settled on the last pause stays, as `finish` keeps it: the process that stored it reads
   * its answer there, and a run that resumed and paused again at once (a page sending its next write) must not turn
   * "applied" into "gone" before that process looked. One still waiting for the worker is dropped: it was not applied.
   */
  async pauseForUser(id: string, owner: string, sealedUserAction: string): Promise<boolean> {
    const res = await this.repo
      .createQueryBuilder()
      .update()
      .set({ status: 'NEEDS_USER', sealedUserAction, userDecision: () => `CASE WHEN ${SETTLED_SQL} THEN user_decision ELSE NULL END` })
      .where("id = :id AND lease_owner = :owner AND status = 'RUNNING'", { id, owner })
      .execute();
    return (res.affected ?? 0) === 1;
  }

  /** NEEDS_USER → RUNNING, by the worker holding it: the person got the page past the step. */
  async resumeFromUser(id: string, owner: string): Promise<boolean> {
    const res = await this.repo.update(
      { id, leaseOwner: owner, status: 'NEEDS_USER' },
      // The stored decision, if any, stays: the heartbeat settles it (ignored, when this pause ended otherwise) so the
      // process that stored it learns it was not applied, instead of reading its disappearance as "taken".
      { status: 'RUNNING', sealedUserAction: null },
    );
    return (res.affected ?? 0) === 1;
  }

  /**
   * Stores a decision on the run's open ask for the worker holding it, one conditional statement: only while the run
   * still waits on exactly the ask the caller read (its sealed user action, unique to each pause) and no decision on
   * it is stored yet (an earlier pause's settled one is replaced). So a pause gets at most one stored decision, and
   * never one meant for an earlier pause.
   */
  async recordUserDecision(id: string, sealedUserAction: string, decision: string): Promise<boolean> {
    const res = await this.repo
      .createQueryBuilder()
      .update()
      .set({ userDecision: decision })
      .where(`id = :id AND status = 'NEEDS_USER' AND sealed_user_action = :sealed AND (user_decision IS NULL OR ${SETTLED_SQL})`, {
        id,
        sealed: sealedUserAction,
      })
      .execute();
    return (res.affected ?? 0) === 1;
  }

  /**
   * The worker's word on a stored decision it read with its heartbeat, one conditional statement: applied to the open
   * ask, or ignored (the pause it was meant for had ended). Only over that very decision: a later pause's is untouched.
   */
  async settleUserDecision(id: string, owner: string, decision: string, applied: boolean): Promise<boolean> {
    const { rows } = await this.sql.query<{ id: string }>(
      'UPDATE agent_requests SET user_decision = $1 WHERE id = $2 AND lease_owner = $3 AND user_decision = $4 RETURNING id',
      [(applied ? APPLIED : IGNORED) + decision, id, owner, decision],
    );
    return rows.length === 1;
  }

  /** What became of a stored decision: still waiting for its worker, applied by it, or not (ignored, dropped, withdrawn). */
  async userDecisionOutcome(id: string, decision: string): Promise<'pending' | 'applied' | 'not_applied'> {
    const { rows } = await this.sql.query<{ user_decision: string | null }>('SELECT user_decision FROM agent_requests WHERE id = $1', [id]);
    const value = rows[0]?.user_decision ?? null;
    if (value === decision) return 'pending';
    return value === APPLIED + decision ? 'applied' : 'not_applied';
  }

  /** Takes back a decision no worker took yet (its caller stops waiting): true when it was still waiting, and is now gone. */
  async withdrawUserDecision(id: string, decision: string): Promise<boolean> {
    const { rows } = await this.sql.query<{ id: string }>(
      'UPDATE agent_requests SET user_decision = NULL WHERE id = $1 AND user_decision = $2 RETURNING id',
      [id, decision],
    );
    return rows.length === 1;
  }

  /** Records the attempts so far (this one last) while the lease is held; false when the worker no longer holds it. */
  async noteAttempts(id: string, owner: string, attemptLog: AgentAttempt[]): Promise<boolean> {
    return (await this.table.updateWhere({ id, leaseOwner: owner }, { attemptLog }, HELD_STATUS)) === 1;
  }

  /** Writes progress (trace so far) while the lease is held. */
  async saveProgress(id: string, owner: string, patch: Partial<Pick<AgentRequestRecord, 'trace' | 'method' | 'modelUsage'>>) {
    await this.repo.update({ id, leaseOwner: owner, status: In(HELD) }, patchOf(patch));
  }

  /** The final write of the worker holding the lease; false when it no longer holds it. */
  async finish(id: string, owner: string, final: AgentRequestFinal): Promise<boolean> {
    const changes: Partial<AgentRequestRecord> = {
      ...final,
      leaseOwner: null,
      leaseExpiresAt: null,
      sealedUserAction: null,
    };
    // user_decision stays: a stored decision the worker settled is its deciding process's answer (settleUserDecision).
    return (await this.table.updateWhere({ id, leaseOwner: owner }, changes, HELD_STATUS)) === 1;
  }

  /** Gives a claimed request back (graceful shutdown): waiting again, and this attempt does not count. */
  /** Queues the request again after an attempt that may be repeated (its browser died before it changed anything). */
  async retry(id: string, owner: string): Promise<boolean> {
    const res = await this.repo
      .createQueryBuilder()
      .update()
      .set({ status: 'PENDING', leaseOwner: null, leaseExpiresAt: null })
      .where("id = :id AND lease_owner = :owner AND status = 'RUNNING'", { id, owner })
      .execute();
    return (res.affected ?? 0) === 1;
  }

  async release(id: string, owner: string): Promise<boolean> {
    const res = await this.repo
      .createQueryBuilder()
      .update()
      .set({ status: 'PENDING', leaseOwner: null, leaseExpiresAt: null, attempts: () => 'attempts - 1' })
      .where("id = :id AND lease_owner = :owner AND status = 'RUNNING'", { id, owner })
      .execute();
    return (res.affected ?? 0) === 1;
  }

  /** Cancels a request nobody runs yet; false when it is no longer PENDING. */
  async cancelPending(id: string, now: Date, error: AgentRequestRecord['error']): Promise<boolean> {
    const res = await this.repo.update(
      { id, status: 'PENDING' },
      patchOf({ status: 'CANCELED', error, cancelRequestedAt: now, completedAt: now, leaseOwner: null, leaseExpiresAt: null }),
    );
    return (res.affected ?? 0) === 1;
  }

  /** Flags a running request for cancellation; its worker sees the flag and stops. */
  async requestCancel(id: string, now: Date): Promise<boolean> {
    const res = await this.repo
      .createQueryBuilder()
      .update()
      .set({ cancelRequestedAt: now })
      .where("id = :id AND status IN ('RUNNING', 'NEEDS_USER') AND cancel_requested_at IS NULL", { id })
      .execute();
    return (res.affected ?? 0) === 1;
  }

  /**
   * Held requests whose lease ran out and that may not be claimed again: running with too many attempts or a cancel
   * asked, or waiting for their user (the page they waited on went with the process that held it).
   */
  async expiredUnrecoverable(now: Date, maxAttempts: number, limit = 50): Promise<AgentRequestRecord[]> {
    return this.repo
      .createQueryBuilder('r')
      .where(
        "r.lease_expires_at < :now AND (r.status = 'NEEDS_USER' OR " +
          "(r.status = 'RUNNING' AND (r.attempts >= :max OR r.cancel_requested_at IS NOT NULL)))",
        { now, max: maxAttempts },
      )
      .limit(limit)
      .getMany();
  }

  /** Ends a request whose worker died; the condition makes sure nobody renewed or claimed it meanwhile. */
  async failExpired(id: string, now: Date, final: AgentRequestFinal): Promise<boolean> {
    const res = await this.repo
      .createQueryBuilder()
      .update()
      .set(patchOf({ ...final, leaseOwner: null, leaseExpiresAt: null, sealedUserAction: null, userDecision: null }))
      .where("id = :id AND status IN ('RUNNING', 'NEEDS_USER') AND lease_expires_at < :now", { id, now })
      .execute();
    return (res.affected ?? 0) === 1;
  }

  /** How many requests wait for a worker, and since when the oldest of them waits (metrics). */
  async pendingStats(): Promise<{ depth: number; oldestCreatedAt: Date | null }> {
    const depth = await this.repo.count({ where: { status: 'PENDING' } });
    if (depth === 0) return { depth, oldestCreatedAt: null };
    const oldest = await this.repo.findOne({
      where: { status: 'PENDING' },
      order: { createdAt: 'ASC' },
      select: { id: true, createdAt: true },
    });
    return { depth, oldestCreatedAt: oldest?.createdAt ?? null };
  }

  /** Waiting requests older than `before` (for engines that must make sure each one has a job). */
  async pendingBefore(before: Date, limit = 100): Promise<string[]> {
    const rows = await this.repo
      .createQueryBuilder('r')
      .select('r.id', 'id')
      .where("r.status = 'PENDING' AND r.created_at < :before", { before })
      .orderBy('r.created_at', 'ASC')
      .limit(limit)
      .getRawMany<{ id: string }>();
    return rows.map((r) => r.id);
  }
}
