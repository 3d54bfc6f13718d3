import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * link_tokens.sign_in: 'auto' (the login recipe where there is one, else the live view; what every earlier token
 * did) or 'live' (the caller asked for the live browser). Plain ALTER TABLE … ADD COLUMN, as in agent-request-mode.
 */
export class LinkTokenSignIn1763701400000 implements MigrationInterface {
  name = 'LinkTokenSignIn1763701400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE link_tokens ADD COLUMN sign_in varchar(8) NOT NULL DEFAULT 'auto'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE link_tokens DROP COLUMN sign_in`);
  }
}
