import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';

/**
 * connection_settings.signed_agent: the organization signs its agent's requests (Web Bot Auth) to the providers that
 * opt in too. Off for every existing row: a signature tells a site the visit is automated, so it is never turned on
 * for anyone who did not ask.
 */
export class SignedAgent1763722000000 implements MigrationInterface {
  name = 'SignedAgent1763722000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('connection_settings', new TableColumn({ name: 'signed_agent', type: 'boolean', isNullable: false, default: false }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('connection_settings', 'signed_agent');
  }
}
