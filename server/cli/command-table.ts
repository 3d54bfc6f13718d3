import { parseArgs, type ParseArgsConfig } from 'node:util';

/**
 * The command line as tables: each command states its usage, a one-line summary and its options, and one dispatcher
 * gives every command and group `--help` (stdout, exit 0), a one-line error for an unknown option or command (exit 2,
 * no stack), and the parsed options to the command's `run`. A new subcommand is one more entry in its group's table.
 */

/** A usage problem: runCli prints the message alone and exits 2. */
export class UsageError extends Error {}

export type Options = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | undefined>;

export interface Command<Ctx> {
  /** The word that selects it: `create` in `agentlink org create`. */
  name: string;
  /** What follows the name in the usage line: `--name "Acme" [--json]`. */
  args?: string;
  /** One line: what it does. */
  summary: string;
  /** More lines for its --help (optional). */
  details?: string[];
  /** Its options (node:util parseArgs), each with the help line that follows it. */
  options?: Options;
  optionHelp?: Record<string, string>;
  /** Runs with the parsed options; throw UsageError for a usage problem. */
  run(ctx: Ctx, values: Values): Promise<void>;
}

export interface CommandGroup<Ctx> {
  /** `org`, `vault`: the word after `agentlink`. */
  name: string;
  summary: string;
  commands: Command<Ctx>[];
}

const HELP_FLAGS = new Set(['--help', '-h']);

export const wantsHelp = (args: readonly string[]) => args.some((a) => HELP_FLAGS.has(a));

function pad(text: string, width: number) {
  return text.length >= width ? `${text}  ` : text.padEnd(width);
}

/** `agentlink org create --name "Acme" [--json]`, its summary, then its options. */
export function commandHelp(prefix: string, command: Command<unknown>): string {
  const lines = [`usage: ${prefix} ${command.name}${command.args ? ` ${command.args}` : ''}`, '', command.summary];
  if (command.details?.length) lines.push('', ...command.details);
  lines.push('', 'options:');
  for (const [name, spec] of Object.entries(command.options ?? {})) {
    const flag = `--${name}${spec.type === 'string' ? ' <value>' : ''}`;
    lines.push(`  ${pad(flag, 24)}${command.optionHelp?.[name] ?? ''}`.trimEnd());
  }
  lines.push(`  ${pad('--help', 24)}this help`);
  return `${lines.join('\n')}\n`;
}

/** The lines of a group's commands in a usage listing (`agentlink --help`, `agentlink org --help`). */
export function groupLines(group: CommandGroup<unknown>): string[] {
  return group.commands.map((c) => {
    const usage = `${group.name} ${c.name}${c.args ? ` ${c.args}` : ''}`;
    return usage.length > 40 ? `  ${usage}\n  ${' '.repeat(42)}${c.summary}` : `  ${pad(usage, 42)}${c.summary}`;
  });
}

export function groupHelp(prefix: string, group: CommandGroup<unknown>): string {
  return [
    `usage: ${prefix} ${group.name} <command> [options]`,
    '',
    group.summary,
    '',
    'commands:',
    ...groupLines(group),
    '',
    `Run '${prefix} ${group.name} <command> --help' for a command's options.`,
    '',
  ].join('\n');
}

/**
 * parseArgs, strict, with its errors as one line: the command and what was wrong (node's own messages go on for
 * a paragraph about positionals and `--`).
 */
export function parseOptions(commandLine: string, options: Options, args: string[]): Values {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values as Values;
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    if (!code.startsWith('ERR_PARSE_ARGS')) throw err;
    const message = (err as Error).message;
    const unknown = /Unknown option '([^']+)'/.exec(message)?.[1];
    const positional = /Unexpected argument '([^']+)'/.exec(message)?.[1];
    const reason = unknown
      ? `unknown option ${unknown}`
      : positional
        ? `unexpected argument ${JSON.stringify(positional)}`
        : (message.split(/\.(\s|$)/)[0] ?? message);
    throw new UsageError(`${commandLine}: ${reason} (see '${commandLine} --help')`);
  }
}

/**
 * Runs `<group> <command> [options]`: with --help (anywhere) prints the help of the group or of the command to stdout;
 * an unknown or missing command is a usage error listing the group's commands.
 */
export async function runGroup<Ctx>(
  prefix: string,
  group: CommandGroup<Ctx>,
  args: string[],
  ctx: () => Ctx,
  write: (text: string) => void,
): Promise<void> {
  const [name, ...rest] = args;
  const command = group.commands.find((c) => c.name === name);
  if (!command) {
    if (name === undefined || HELP_FLAGS.has(name) || name === 'help') {
      if (name === undefined) throw new UsageError(groupHelp(prefix, group).trimEnd());
      write(groupHelp(prefix, group));
      return;
    }
    throw new UsageError(
      `${prefix} ${group.name}: unknown command ${JSON.stringify(name)} (commands: ${group.commands.map((c) => c.name).join(', ')}; see '${prefix} ${group.name} --help')`,
    );
  }
  if (wantsHelp(rest)) {
    write(commandHelp(`${prefix} ${group.name}`, command as Command<unknown>));
    return;
  }
  const values = parseOptions(`${prefix} ${group.name} ${command.name}`, command.options ?? {}, rest);
  await command.run(ctx(), values);
}
