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
  // util.parseEnv is Node's own .env grammar (20.12+); package.json allows 20.11, where a .env cannot be read silently wrong.
  if (typeof util.parseEnv !== 'function') throw new Error(`${file}: reading a .env file needs Node.js 20.12 or later`);
  return { ...util.parseEnv(text), ...env };
}
