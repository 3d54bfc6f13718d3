export type Dialect = 'sqlite' | 'postgres';

/** Column types per dialect, shared by entities and migrations so the two cannot drift apart. */
export function dialectTypes(dialect: Dialect) {
  return dialect === 'postgres'
    ? { timestamp: 'timestamptz' as const, jsonEntity: 'jsonb' as const, jsonColumn: 'jsonb' }
    : { timestamp: 'datetime' as const, jsonEntity: 'simple-json' as const, jsonColumn: 'text' };
}

export function dialectOf(driverType: string): Dialect {
  return driverType === 'postgres' ? 'postgres' : 'sqlite';
}
