import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { UsageError } from '../server/cli/command-table';
import { ORG_COMMANDS } from '../server/cli/org.cli';
import { VAULT_COMMANDS } from '../server/cli/vault.commands';
import { main } from '../server/main';

const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'agentlink.js');
const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `agentlink …` as a child process in `cwd`, with a clean environment (plus `env`). */
function cli(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<Run> {
  const env = { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), NODE_ENV: 'test', LOG_LEVEL: 'silent', ...opts.env };
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: opts.cwd ?? ROOT, env, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** main() in this process, its stdout captured (the help sweep would otherwise start a process per command). */
async function inProcess(argv: string[]): Promise<{ stdout: string; error: unknown }> {
  let stdout = '';
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  try {
    await main(argv);
    return { stdout, error: null };
  } catch (error) {
    return { stdout, error };
  } finally {
    spy.mockRestore();
  }
}

jest.setTimeout(120_000);

describe('agentlink --help, --version and usage errors', () => {
  const groups = [ORG_COMMANDS, VAULT_COMMANDS];
  const every = [
    ['serve'],
    ['worker'],
    ['migrate'],
    ['mcp'],
    ...groups.flatMap((g) => [[g.name], ...g.commands.map((c) => [g.name, c.name])]),
  ];

  it('--help of every command and subcommand prints its usage to stdout, reading no configuration', async () => {
    // An invalid configuration must not stand in the way of help.
    const saved = process.env.PORT;
    process.env.PORT = 'not-a-port';
    try {
      for (const words of every) {
        const { stdout, error } = await inProcess([...words, '--help']);
        expect({ words, error }).toEqual({ words, error: null });
        expect(stdout).toMatch(new RegExp(`^usage: agentlink ${words.join(' ')}\\b`));
      }
      // The top-level help names every command of every group (a new subcommand shows up by being in its table).
      const { stdout } = await inProcess(['--help']);
      for (const words of every) expect(stdout).toContain(words.join(' '));
    } finally {
      if (saved === undefined) delete process.env.PORT;
      else process.env.PORT = saved;
    }
  });

  it('a command help lists its options', async () => {
    const { stdout } = await inProcess(['org', 'rotate-secret', '--help']);
    expect(stdout).toContain('--org <value>');
    expect(stdout).toContain('--env <value>');
    expect(stdout).toContain('--json');
  });

  it('unknown options and commands are usage errors of one line', async () => {
    const unknown = await inProcess(['org', 'create', '--nme', 'Acme']);
    expect(unknown.error).toBeInstanceOf(UsageError);
    expect((unknown.error as Error).message).toBe("agentlink org create: unknown option --nme (see 'agentlink org create --help')");
    const sub = await inProcess(['org', 'delete']);
    expect((sub.error as Error).message).toMatch(
      /^agentlink org: unknown command "delete" \(commands: create, list, rotate-secret, add-member/,
    );
    const missing = await inProcess(['serve', '--role']);
    expect((missing.error as Error).message).toMatch(/^agentlink serve: Option '--role <value>' argument missing/);
    const positional = await inProcess(['org', 'list', 'extra']);
    expect((positional.error as Error).message).toBe(`agentlink org list: unexpected argument "extra" (see 'agentlink org list --help')`);
  });

  it('as a process: --help exits 0 on stdout, --version prints the version, an unknown option exits 2 with no stack', async () => {
    const [help, orgHelp, serveHelp, version, bad] = await Promise.all([
      cli(['--help']),
      cli(['org', '--help']),
      cli(['serve', '--help']),
      cli(['--version']),
      cli(['serve', '--port', '1']),
    ]);
    expect(help).toMatchObject({ code: 0, stderr: '', stdout: expect.stringMatching(/^usage: agentlink <command>/) });
    expect(orgHelp).toMatchObject({ code: 0, stderr: '', stdout: expect.stringMatching(/^usage: agentlink org <command>/) });
    expect(serveHelp).toMatchObject({ code: 0, stderr: '', stdout: expect.stringContaining('--role <value>') });
    expect(version).toEqual({ code: 0, stderr: '', stdout: `${VERSION}\n` });
    expect(bad).toEqual({ code: 2, stdout: '', stderr: "agentlink serve: unknown option --port (see 'agentlink serve --help')\n" });
  });
});

describe('agentlink finds the database the server uses', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-cli-env-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("reads ./.env under the environment: the server's AGENTLINK_DATA_DIR there is the CLI's too", async () => {
    const data = path.join(dir, 'server-data');
    fs.writeFileSync(path.join(dir, '.env'), `# the server's settings\nAGENTLINK_DATA_DIR=${data}\nLOG_LEVEL=silent\n`);
    const migrated = await cli(['migrate'], { cwd: dir });
    expect(migrated).toMatchObject({ code: 0, stdout: `Migrations applied to SQLite file ${path.join(data, 'agentlink.sqlite')}\n` });
    const created = await cli(['org', 'create', '--name', 'Env Org', '--json'], { cwd: dir });
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const listed = await cli(['org', 'list', '--json'], { cwd: dir });
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ name: 'Env Org', clientId: JSON.parse(created.stdout).clientId }),
    ]);
    expect(fs.existsSync(path.join(dir, 'data'))).toBe(false);
    // The environment wins over the file.
    const other = path.join(dir, 'other');
    const elsewhere = await cli(['org', 'list'], { cwd: dir, env: { AGENTLINK_DATA_DIR: other } });
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain(`No AgentLink database at ${path.join(other, 'agentlink.sqlite')}`);
  });

  it('refuses to act on a database that does not exist, and org create warns loudly that it makes a NEW one', async () => {
    const data = path.join(dir, 'nothing-here');
    const listed = await cli(['org', 'list'], { env: { AGENTLINK_DATA_DIR: data } });
    expect(listed).toMatchObject({ code: 2, stdout: '' });
    expect(listed.stderr).toMatch(/^No AgentLink database at .*nothing-here\/agentlink\.sqlite/);
    expect(listed.stderr).not.toMatch(/\n\s+at /);
    expect(fs.existsSync(path.join(data, 'agentlink.sqlite'))).toBe(false);
    const created = await cli(['org', 'create', '--name', 'New', '--json'], { env: { AGENTLINK_DATA_DIR: data } });
    expect(created.code).toBe(0);
    expect(created.stderr).toContain('!!! WARNING: creating a NEW AgentLink database');
    expect(created.stderr).toContain('will NOT know this organization');
    expect(JSON.parse(created.stdout)).toMatchObject({ name: 'New' });
  });
});
