import fs from 'node:fs';
import path from 'node:path';
import util from 'node:util';

/** The file every `agentlink` command reads its settings from, in the working directory, under the environment. */
export const ENV_FILE = '.env';

/**
 * One configuration source for the server and the operator's commands: the variables of ./.env (if there is one)
 * with the process environment over them, as dotenv does. `agentlink serve` and `agentlink org create` run from the
 * same directory then use the same AGENTLINK_DATA_DIR / DATABASE_URL without anyone repeating them on the command line.
 */
export function environmentWithEnvFile(
  env: Record<string, string | undefined>,
  file = path.resolve(ENV_FILE),
): Record<string, string | undefined> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return env;
    throw err;
  }
  return { ...util.parseEnv(text), ...env };
}
