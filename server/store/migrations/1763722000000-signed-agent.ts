import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * connection_settings.signed_agent: the organization signs its agent's requests (Web Bot Auth) to the providers that
 * opt in too. Off for every existing row: a signature tells a site the visit is automated, so it is never turned on
 * for anyone who did not ask.
 */
export class SignedAgent1763722000000 implements MigrationInterface {
  name = 'SignedAgent1763722000000';

  async up(q: QueryRunner): Promise<void> {
    // A plain ALTER: TypeORM's addColumn rebuilds a SQLite table and has dropped columns other migrations added that way.
    await q.query(`ALTER TABLE connection_settings ADD COLUMN signed_agent boolean NOT NULL DEFAULT false`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connection_settings DROP COLUMN signed_agent`);
  }
}
