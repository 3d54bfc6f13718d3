import path from 'node:path';

import type { AppConfig } from '../config';

/** POSIX shell quoting, for commands the user copies. */
export function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The environment another command needs to act on this process's data and print this process's URLs: only what
 * differs from the defaults. A DATABASE_URL is named, never printed (it may hold a password).
 */
export function sameConfigPrefix(config: AppConfig): { prefix: string; note: string | null } {
  const vars: string[] = [];
  const defaultUrl = `http://localhost:${config.port}`;
  if (config.publicUrl !== defaultUrl) vars.push(`AGENTLINK_PUBLIC_URL=${shellQuote(config.publicUrl)}`);
  else if (config.port !== 4000) vars.push(`PORT=${config.port}`);
  if (config.database.type === 'sqlite' && config.dataDir !== path.resolve('./data')) {
    vars.push(`AGENTLINK_DATA_DIR=${shellQuote(config.dataDir)}`);
  }
  return {
    prefix: vars.length ? `${vars.join(' ')} ` : '',
    note: config.database.type === 'postgres' ? 'with the same DATABASE_URL' : null,
  };
}
