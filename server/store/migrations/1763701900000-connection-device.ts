import type { MigrationInterface, QueryRunner } from 'typeorm';

import { dialectOf, dialectTypes } from '../dialect';

/**
 * The device and exit of a connection. connections.device: the browser identity every run, check and re-login of the
 * connection presents (user agent, languages, time zone, window), in the clear: a site sees all of it. null for
 * connections made before, which get one on their next run. connections.sealed_exit_proxy: the upstream proxy the
 * connection's browser traffic leaves through (address and credentials, vault-sealed); exit_proxy_label: what the API
 * shows of it. Plain ALTER TABLE … ADD COLUMN: nullable columns, the same statement on SQLite and PostgreSQL.
 */
export class ConnectionDevice1763701900000 implements MigrationInterface {
  name = 'ConnectionDevice1763701900000';

  async up(q: QueryRunner): Promise<void> {
    const t = dialectTypes(dialectOf(q.connection.options.type));
    await q.query(`ALTER TABLE connections ADD COLUMN device ${t.jsonColumn}`);
    await q.query(`ALTER TABLE connections ADD COLUMN sealed_exit_proxy text`);
    await q.query(`ALTER TABLE connections ADD COLUMN exit_proxy_label varchar(100)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connections DROP COLUMN exit_proxy_label`);
    await q.query(`ALTER TABLE connections DROP COLUMN sealed_exit_proxy`);
    await q.query(`ALTER TABLE connections DROP COLUMN device`);
  }
}
