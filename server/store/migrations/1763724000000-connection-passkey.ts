import type { MigrationInterface, QueryRunner } from 'typeorm';

import { dialectOf, dialectTypes } from '../dialect';

/**
 * Passkeys of a connection's own (issue 37). link_tokens.enroll_passkey: the organization's opt-in for the sign-in to
 * keep one. connections.sealed_passkey: the credential (its private key among it), vault-sealed like the password;
 * connections.passkey: what the API shows of it (credential id, RP ID, when made and last used), never a secret.
 * Plain ADD COLUMN (nullable, or with a default), the same statement on SQLite and PostgreSQL.
 */
export class ConnectionPasskey1763724000000 implements MigrationInterface {
  name = 'ConnectionPasskey1763724000000';

  async up(q: QueryRunner): Promise<void> {
    const t = dialectTypes(dialectOf(q.connection.options.type));
    await q.query(`ALTER TABLE link_tokens ADD COLUMN enroll_passkey boolean NOT NULL DEFAULT false`);
    await q.query(`ALTER TABLE connections ADD COLUMN sealed_passkey text`);
    await q.query(`ALTER TABLE connections ADD COLUMN passkey ${t.jsonColumn}`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connections DROP COLUMN passkey`);
    await q.query(`ALTER TABLE connections DROP COLUMN sealed_passkey`);
    await q.query(`ALTER TABLE link_tokens DROP COLUMN enroll_passkey`);
  }
}
