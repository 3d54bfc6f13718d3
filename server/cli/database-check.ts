import fs from 'node:fs';

import type { AppConfig } from '../config';
import { UsageError } from './command-table';

/** `create`: the command may start a new database (org create); `use`: it acts on an existing one. */
export type DatabaseIntent = 'create' | 'use';

/**
 * The operator's commands act on the database of the configuration they read. When that is a SQLite file that does not
 * exist, the command was most likely run without the settings the server runs with (another AGENTLINK_DATA_DIR, or
 * another working directory): `org create` goes on with a loud warning on stderr (the server would refuse the
 * credentials it prints), the others refuse instead of acting on a new, empty database. PostgreSQL: the URL names
 * the database, so nothing can be created by mistake.
 */
export function checkDatabase(config: AppConfig, intent: DatabaseIntent, warn: (text: string) => void): void {
  if (config.database.type !== 'sqlite' || fs.existsSync(config.database.file)) return;
  const file = config.database.file;
  const how = [
    'Run it with the settings of the running server (its start-up banner prints `org create` with them), or put them',
    '(AGENTLINK_DATA_DIR or DATABASE_URL) in a .env file in the working directory: the server and the CLI both read it.',
  ];
  if (intent === 'use') {
    throw new UsageError(`No AgentLink database at ${file} (AGENTLINK_DATA_DIR=${config.dataDir}).\n${how.join('\n')}`);
  }
  warn(
    [
      '!!! WARNING: creating a NEW AgentLink database',
      `!!!   ${file} does not exist (AGENTLINK_DATA_DIR=${config.dataDir}).`,
      '!!!   A server running with another AGENTLINK_DATA_DIR or DATABASE_URL will NOT know this organization',
      '!!!   and will refuse its credentials.',
      ...how.map((line) => `!!! ${line}`),
      '',
    ].join('\n'),
  );
}
