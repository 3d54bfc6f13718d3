import type { EntitySchemaColumnOptions } from 'typeorm';

import { type Dialect, dialectTypes } from './dialect';

/** The column helpers every entity file uses, for one dialect (n8n's column helpers: JSONB/TIMESTAMPTZ or TEXT/DATETIME). */
export function entityColumns(dialect: Dialect) {
  const t = dialectTypes(dialect);
  const id = (): EntitySchemaColumnOptions => ({ type: 'varchar', length: 64, primary: true });
  const str = (name: string, opts: Partial<EntitySchemaColumnOptions> = {}): EntitySchemaColumnOptions => ({
    name,
    type: 'varchar',
    length: 255,
    ...opts,
  });
  const text = (name: string, nullable = false): EntitySchemaColumnOptions => ({ name, type: 'text', nullable });
  const time = (name: string, nullable = false): EntitySchemaColumnOptions => ({ name, type: t.timestamp, nullable });
  const json = (name: string, nullable = false): EntitySchemaColumnOptions => ({ name, type: t.jsonEntity, nullable });
  const int = (name: string, nullable = false): EntitySchemaColumnOptions => ({ name, type: 'integer', nullable });

  return { id, str, text, time, json, int };
}
