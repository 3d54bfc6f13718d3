import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * link_sessions.host_url: the internal address of the API process that holds a link session's in-memory part (a
 * sign-in paused at a code step, a live browser); another process relays that session's widget calls to it.
 */
export class LinkSessionHost1763701600000 implements MigrationInterface {
  name = 'LinkSessionHost1763701600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE link_sessions ADD COLUMN host_url varchar(300)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE link_sessions DROP COLUMN host_url`);
  }
}
