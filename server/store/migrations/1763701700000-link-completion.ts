import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

import { dialectOf, dialectTypes } from '../dialect';

/**
 * Hosted links that finish: redirect_uris, the URIs an organization allows per environment (unique by the hash of the
 * URI, which can be 2048 characters: too long for a portable unique index on the text itself), and
 * link_tokens.completion_redirect_uri, where a link token's flow sends the browser when it ends.
 */
export class LinkCompletion1763701700000 implements MigrationInterface {
  name = 'LinkCompletion1763701700000';

  async up(q: QueryRunner): Promise<void> {
    const t = dialectTypes(dialectOf(q.connection.options.type));
    await q.createTable(
      new Table({
        name: 'redirect_uris',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'organization_id', type: 'varchar', length: '64' },
          { name: 'environment', type: 'varchar', length: '16' },
          { name: 'uri', type: 'text' },
          { name: 'uri_hash', type: 'varchar', length: '64' },
          { name: 'created_at', type: t.timestamp },
        ],
        indices: [
          new TableIndex({ name: 'uq_redirect_uris_uri', columnNames: ['organization_id', 'environment', 'uri_hash'], isUnique: true }),
        ],
      }),
    );
    await q.query(`ALTER TABLE link_tokens ADD COLUMN completion_redirect_uri text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE link_tokens DROP COLUMN completion_redirect_uri`);
    await q.dropTable('redirect_uris');
  }
}
