import { EntitySchema, type ValueTransformer } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';

import { newId } from '../../server/domain/ids';
import { dialectTypes } from '../../server/store/dialect';

/**
 * The probe of typeorm-internals.test.ts's value conversions: an entity with every kind of conversion the store's
 * entities use and two value transformers (cents, comma-separated text), and records of it.
 */

/** Stored in cents, read back in units: the value in the table differs from the record's. */
export const cents: ValueTransformer = {
  to: (v: number | null | undefined) => (v == null ? v : Math.round(v * 100)),
  from: (v: number | string | null) => (v == null ? v : Number(v) / 100),
};
/** A list stored as comma-separated text. */
const csv: ValueTransformer = {
  to: (v: string[] | null | undefined) => (v == null ? v : v.join(',')),
  from: (v: string | null) => (v == null ? v : v === '' ? [] : v.split(',')),
};

export interface ProbeRecord {
  id: string;
  createdAt: Date;
  seenAt: Date | null;
  data: Record<string, unknown> | null;
  enabled: boolean;
  amount: number;
  tags: string[];
}

/** An entity with every kind of conversion the store's entities use, and transformers (which none uses yet). */
export function probeEntity(dialect: 'sqlite' | 'postgres') {
  const t = dialectTypes(dialect);
  return new EntitySchema<ProbeRecord>({
    name: 'InternalsProbe',
    tableName: 'typeorm_internals_probe',
    columns: {
      id: { type: 'varchar', length: 64, primary: true },
      createdAt: { name: 'created_at', type: t.timestamp },
      seenAt: { name: 'seen_at', type: t.timestamp, nullable: true },
      data: { name: 'data_json', type: t.jsonEntity, nullable: true },
      enabled: { name: 'is_enabled', type: 'boolean' },
      amount: { name: 'amount_cents', type: 'integer', transformer: cents },
      tags: { name: 'tag_list', type: 'text', transformer: csv },
    },
  });
}

/** TypeORM's insert type cannot express a free-form JSON column. */
export const asProbeRow = (r: ProbeRecord) => r as unknown as QueryDeepPartialEntity<ProbeRecord>;

/** A probe record (a fresh id; every other value fixed, unless overridden). */
export const probe = (overrides: Partial<ProbeRecord> = {}): ProbeRecord => ({
  id: newId('req'),
  createdAt: new Date(Date.UTC(2026, 1, 3, 4, 5, 6, 789)),
  seenAt: null,
  data: { text: 'héllo ✓', n: 1.5, list: [true, null, 'x'] },
  enabled: false,
  amount: 12.34,
  tags: ['a', 'b'],
  ...overrides,
});
