import type { AppConfig } from '../config';
import type * as VaultCli from '../vault/vault.cli';
import { type Command, type CommandGroup, UsageError } from './command-table';

type Out = (json: boolean, value: unknown, text: string) => void;

/** Loaded when a command runs (require: tsx's CommonJS hook, which runs the sources, resolves require only). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const vaultCli = () => require('../vault/vault.cli') as typeof VaultCli;

/**
 * `agentlink vault <command>`, as a table (command-table.ts gives each its --help and parsing); the work is
 * server/vault/vault.cli.ts, loaded when a command runs.
 */
export const VAULT_COMMANDS: CommandGroup<{ config: AppConfig; print: Out }> = {
  name: 'vault',
  summary: 'The encryption keys of the sealed values (connection sessions and credentials, webhook signing secrets).',
  commands: (
    (
      [
        ['rotate-key', 'new primary encryption key (key file), then re-seal every stored value'],
        ['reseal', 're-seal stored values with the primary key (idempotent; resumes a rotation)'],
        ['status', 'key ids and how many stored values each protects'],
      ] as const
    ).map(([name, summary]) => ({
      name,
      args: '[--json]',
      summary,
      options: { json: { type: 'boolean', default: false } },
      optionHelp: { json: 'print the answer as JSON' },
      run: ({ config, print }, values) =>
        vaultCli().vaultCommand(config, [name, ...(values.json === true ? ['--json'] : [])], print, (message) => new UsageError(message)),
    })) as Command<{ config: AppConfig; print: Out }>[]
  ).concat({
    name: 'replace-signing-key',
    args: '[--overlap-hours 168] [--json]',
    summary: 'a new Web Bot Auth signing key; the old one stays listed in the key directory for the overlap, then drops out',
    options: { json: { type: 'boolean', default: false }, 'overlap-hours': { type: 'string' } },
    optionHelp: { json: 'print the answer as JSON', 'overlap-hours': 'how long the old key stays listed (default 168: a week)' },
    run: ({ config, print }, values) =>
      vaultCli().vaultCommand(
        config,
        [
          'replace-signing-key',
          ...(values.json === true ? ['--json'] : []),
          ...(typeof values['overlap-hours'] === 'string' ? ['--overlap-hours', values['overlap-hours']] : []),
        ],
        print,
        (message) => new UsageError(message),
      ),
  }),
};
