import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

import { dialectOf, dialectTypes } from '../dialect';

/**
 * An organization's private providers (POST /api/providers): the declaration as it was validated, one slug per
 * organization and environment (the unique index settles two creations racing for one slug).
 */
export class OrganizationProviders1763701500000 implements MigrationInterface {
  name = 'OrganizationProviders1763701500000';

  async up(q: QueryRunner): Promise<void> {
    const t = dialectTypes(dialectOf(q.connection.options.type));
    await q.createTable(
      new Table({
        name: 'organization_providers',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'organization_id', type: 'varchar', length: '64' },
          { name: 'environment', type: 'varchar', length: '16' },
          { name: 'slug', type: 'varchar', length: '64' },
          { name: 'declaration', type: t.jsonColumn },
          { name: 'created_at', type: t.timestamp },
          { name: 'updated_at', type: t.timestamp },
        ],
        indices: [
          new TableIndex({
            name: 'uq_organization_providers_slug',
            columnNames: ['organization_id', 'environment', 'slug'],
            isUnique: true,
          }),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('organization_providers');
  }
}
