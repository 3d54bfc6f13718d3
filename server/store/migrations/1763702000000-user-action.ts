import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A run that waits for its end user. agent_requests.approval: when writes wait for the user's approval (null: never).
 * agent_requests.sealed_user_action: while NEEDS_USER, what the run waits for (reason, message, expiry, the link token
 * that brings the user in), vault-sealed: it holds a live link token. link_tokens.agent_request_id: the paused run a
 * link token opens; link_tokens.host_url: the internal URL of the worker process holding that run's browser (the
 * widget's calls reaching another process are relayed there). Plain ALTER TABLE … ADD COLUMN: nullable columns, the same statement on SQLite and PostgreSQL.
 */
export class UserAction1763702000000 implements MigrationInterface {
  name = 'UserAction1763702000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE agent_requests ADD COLUMN approval varchar(16)`);
    await q.query(`ALTER TABLE agent_requests ADD COLUMN sealed_user_action text`);
    await q.query(`ALTER TABLE link_tokens ADD COLUMN agent_request_id varchar(64)`);
    await q.query(`ALTER TABLE link_tokens ADD COLUMN host_url varchar(300)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE link_tokens DROP COLUMN host_url`);
    await q.query(`ALTER TABLE link_tokens DROP COLUMN agent_request_id`);
    await q.query(`ALTER TABLE agent_requests DROP COLUMN sealed_user_action`);
    await q.query(`ALTER TABLE agent_requests DROP COLUMN approval`);
  }
}
