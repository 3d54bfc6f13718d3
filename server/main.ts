import {
  type Command,
  type CommandGroup,
  commandHelp,
  groupLines,
  parseOptions,
  runGroup,
  UsageError,
  wantsHelp,
} from './cli/command-table';
import { environmentWithEnvFile } from './cli/env-file';
import { ORG_COMMANDS } from './cli/org.cli';
import type * as Roles from './cli/roles';
import { VAULT_COMMANDS } from './cli/vault.commands';
import { type AppConfig, ConfigError, loadConfig } from './config';
import type * as McpStdio from './mcp/mcp-stdio';
import { McpStdioError } from './mcp/mcp-stdio-error';
import { AGENTLINK_VERSION } from './version';

function print(json: boolean, value: unknown, text: string) {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text}\n`);
}

const write = (text: string) => process.stdout.write(text);

/** What a command runs with: the configuration, read only when a command runs (never for --help or --version). */
type Ctx = { config: AppConfig; print: typeof print; warn: (text: string) => void };

/*
 * What a command runs is loaded when it runs: require, not import(), because tsx's CommonJS hook (how bin/agentlink.js
 * runs the sources) resolves require only; compiled, both are require.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const roles = () => require('./cli/roles') as typeof Roles;
const mcpStdio = () => require('./mcp/mcp-stdio') as typeof McpStdio;
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * One binary, several roles (the package's `agentlink` bin, bin/agentlink.js): the commands below, then the groups of
 * operator commands (server/cli/org.cli.ts, server/cli/vault.commands.ts). Each entry gives its usage and --help; what
 * a command runs is loaded when it runs (server/cli/roles.ts …), so help and usage errors answer at once.
 */
const COMMANDS: Command<Ctx>[] = [
  {
    name: 'serve',
    args: '[--role all|api]',
    summary: 'start the service; role all (default) also runs a worker, role api only the API',
    details: ['Settings: PORT, AGENTLINK_DATA_DIR, DATABASE_URL … from the environment, over those of ./.env (see the README).'],
    options: { role: { type: 'string' } },
    optionHelp: { role: 'all (API and an embedded worker, the default) or api (API only)' },
    run: ({ config }, values) => roles().serve(config, values),
  },
  {
    name: 'worker',
    summary: 'run only a worker (any number, against one database); serves /healthz, /readyz, /metrics on PORT',
    run: ({ config }) => roles().runWorker(config),
  },
  {
    name: 'migrate',
    summary: 'apply database migrations and exit',
    run: ({ config }) => roles().migrate(config),
  },
  {
    name: 'mcp',
    summary: "the MCP server over stdio, for local agents: forwards to a running AgentLink's /mcp",
    details: [
      'Environment: AGENTLINK_CLIENT_ID and AGENTLINK_CLIENT_SECRET (from `agentlink org create`), AGENTLINK_BASE_URL',
      '(default AGENTLINK_PUBLIC_URL, else http://localhost:$PORT). stdout carries only the protocol.',
    ],
    run: ({ config }) => mcpStdio().serveMcpOverStdio(config),
  },
];

const GROUPS: CommandGroup<Ctx>[] = [ORG_COMMANDS, VAULT_COMMANDS];

function usage(): string {
  const top = COMMANDS.map((c) => {
    const line = `${c.name}${c.args ? ` ${c.args}` : ''}`;
    return `  ${line.padEnd(42)}${c.summary}`;
  });
  return [
    'usage: agentlink <command> [options]',
    ...top,
    ...GROUPS.flatMap((g) => groupLines(g as CommandGroup<unknown>)),
    '',
    '  --help                                    help (also after any command: agentlink org create --help)',
    '  --version                                 the version of agentlink',
    '',
  ].join('\n');
}

export async function main(argv: string[]) {
  const [command, ...rest] = argv;
  if (command === '--version' || command === '-v' || command === 'version') return write(`${AGENTLINK_VERSION}\n`);
  if (command === '--help' || command === '-h' || command === 'help') return write(usage());
  // Read once, when a command runs: ./.env under the environment (one configuration source for every command).
  let config: AppConfig | undefined;
  const ctx = (): Ctx => ({
    config: (config ??= loadConfig(environmentWithEnvFile(process.env))),
    print,
    warn: (text) => process.stderr.write(text),
  });
  const top = COMMANDS.find((c) => c.name === command);
  if (top) {
    if (wantsHelp(rest)) return write(commandHelp('agentlink', top as Command<unknown>));
    const values = parseOptions(`agentlink ${top.name}`, top.options ?? {}, rest);
    return top.run(ctx(), values);
  }
  const group = GROUPS.find((g) => g.name === command);
  if (group) return runGroup('agentlink', group, rest, ctx, write);
  if (command?.startsWith('-')) throw new UsageError(`agentlink: unknown option ${command} (see 'agentlink --help')`);
  throw new UsageError(usage().trimEnd());
}

/** The command line: usage and configuration errors exit 2 with their message, anything else 1 with its stack. */
export function runCli(argv: string[]): void {
  main(argv).catch((err) => {
    if (err instanceof UsageError || err instanceof ConfigError || err instanceof McpStdioError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}

if (require.main === module) runCli(process.argv.slice(2));
