import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { parse as parseYaml } from 'yaml';

import { CHROMIUM_ARGS } from '../../server/browser/chromium';
import { CONFIG_VARIABLES, loadConfig, SECRET_VARIABLES } from '../../server/config';
import { DOCKER_BUILD_STAGE, DOCKER_DEPS_STAGE, ROLE_COMMANDS } from './deploy-commands';

/**
 * No container engine runs here, so the Dockerfile and docker-compose.yml are checked against the code instead: they
 * run exactly the commands test/ops/production-build.slow.test.ts runs (./deploy-commands.ts), start roles that
 * exist, set only variables the configuration reads (and values it accepts), and copy what the build needs.
 */
const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  from: string;
  name?: string;
  instructions: Instruction[];
}

/** Dockerfile instructions by stage (comments dropped, `\` continuations joined). */
function dockerStages(text: string): Stage[] {
  const lines = text
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const stages: Stage[] = [];
  for (const line of lines) {
    const m = /^([A-Z]+)\s+(.*)$/.exec(line);
    if (!m) throw new Error(`not an instruction: ${line}`);
    const [, op, args] = m;
    if (op === 'FROM') {
      const f = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args)!;
      stages.push({ from: f[1], ...(f[2] ? { name: f[2] } : {}), instructions: [] });
    } else if (op !== 'ARG' || stages.length > 0) {
      stages[stages.length - 1]?.instructions.push({ op, args });
    }
  }
  return stages;
}

/** The npm commands of a stage's RUN lines, as argument lists. */
const npmCommands = (stage: Stage) =>
  stage.instructions
    .filter((i) => i.op === 'RUN')
    .flatMap((i) => i.args.split('&&').map((c) => c.trim()))
    .filter((c) => c.startsWith('npm '))
    .map((c) => c.split(/\s+/));

const execForm = (args: string) => JSON.parse(args) as string[];

describe('Dockerfile', () => {
  const stages = dockerStages(read('Dockerfile'));
  const [build, deps, runtime] = stages;

  it('has three stages: build, deps and an unnamed runtime', () => {
    expect(stages.map((s) => s.name)).toEqual(['build', 'deps', undefined]);
    expect(stages.every((s) => s.from === '${NODE_IMAGE}')).toBe(true);
    expect(read('Dockerfile')).toMatch(/^ARG NODE_IMAGE=node:20-bookworm-slim$/m);
  });

  it('runs exactly the install and build commands the production build test runs', () => {
    expect(npmCommands(build)).toEqual(DOCKER_BUILD_STAGE);
    expect(npmCommands(deps)).toEqual(DOCKER_DEPS_STAGE);
    expect(npmCommands(runtime)).toEqual([]);
    for (const [, verb, script] of DOCKER_BUILD_STAGE) if (verb === 'run') expect(pkg.scripts[script]).toBeDefined();
  });

  it('builds from what the build needs, and nothing .dockerignore drops', () => {
    const copies = build.instructions.filter((i) => i.op === 'COPY').flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    const tsconfig = JSON.parse(read('tsconfig.build.json').replace(/^\s*\/\/.*$/gm, '')) as { include: string[] };
    for (const included of tsconfig.include) expect(copies).toContain(included.split('/')[0]);
    for (const needed of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts'])
      expect(copies).toContain(needed);
    const ignored = read('.dockerignore').split('\n').filter(Boolean);
    const runtimeCopies = runtime.instructions
      .filter((i) => i.op === 'COPY' && !i.args.startsWith('--from'))
      .map((i) => i.args.split(/\s+/)[0]);
    for (const copied of [...copies, ...runtimeCopies]) {
      expect(fs.existsSync(path.join(ROOT, copied))).toBe(true);
      expect(ignored).not.toContain(copied);
    }
    expect(runtime.instructions.filter((i) => i.op === 'COPY' && i.args.startsWith('--from')).map((i) => i.args)).toEqual([
      '--from=deps /app/node_modules ./node_modules',
      '--from=build /app/dist ./dist',
    ]);
  });

  it('runs as a non-root user with Chromium from Debian, and starts the server as npm run start:prod does', () => {
    const users = runtime.instructions.filter((i) => i.op === 'USER').map((i) => i.args);
    expect(users).toEqual(['node']);
    const apt = runtime.instructions.find((i) => i.op === 'RUN' && i.args.includes('apt-get install'))!;
    expect(apt.args.split(/\s+/)).toEqual(expect.arrayContaining(['chromium', 'tini']));
    const cmd = execForm(runtime.instructions.find((i) => i.op === 'CMD')!.args);
    expect(cmd).toEqual(ROLE_COMMANDS.all);
    expect(pkg.scripts['start:prod']).toBe(cmd.join(' '));
    expect(execForm(runtime.instructions.find((i) => i.op === 'ENTRYPOINT')!.args)).toEqual(['/usr/bin/tini', '--']);
  });

  it('sets only configuration variables, with values the configuration accepts (Chromium at its Debian path)', () => {
    const env: Record<string, string> = {};
    for (const i of runtime.instructions.filter((x) => x.op === 'ENV')) {
      for (const m of i.args.matchAll(/([A-Z_][A-Z0-9_]*)=(\S+)/g)) env[m[1]] = m[2];
    }
    for (const name of Object.keys(env)) expect(CONFIG_VARIABLES).toContain(name);
    expect(env).toMatchObject({ AGENTLINK_CHROMIUM_PATH: '/usr/bin/chromium', AGENTLINK_DATA_DIR: '/data', PORT: '4000' });
    expect(loadConfig(env)).toMatchObject({
      nodeEnv: 'production',
      port: 4000,
      host: '0.0.0.0',
      browser: { executablePath: '/usr/bin/chromium' },
    });
  });

  it('checks health on /readyz, at the port the configuration listens on, within the readiness bound', () => {
    const hc = runtime.instructions.find((i) => i.op === 'HEALTHCHECK')!.args;
    const [, options, command] = /^(.*?)CMD (\[.*\])$/.exec(hc)!;
    expect(execForm(command).slice(0, 2)).toEqual(['node', '-e']);
    expect(execForm(command)[2]).toContain("'http://127.0.0.1:' + process.env.PORT + '/readyz'");
    const timeout = Number(/--timeout=(\d+)s/.exec(options)![1]);
    expect(timeout).toBeGreaterThan(5); // each readiness check is bounded to 5 s
  });
});

describe('docker-compose.yml', () => {
  type Service = {
    image?: string;
    command?: string[];
    entrypoint?: string[];
    environment?: Record<string, string>;
    profiles?: string[];
    network_mode?: string;
    secrets?: string[];
    ports?: string[];
  };
  const text = read('docker-compose.yml');
  const compose = parseYaml(text, { merge: true }) as {
    services: Record<string, Service>;
    secrets: Record<string, { file?: string; environment?: string }>;
  };
  const services = compose.services;
  const agentlink = Object.entries(services).filter(([, s]) => s.image === 'agentlink:local' && s.command?.[0] === 'node');
  /** Compose's own interpolation, for the variables this file uses (none of them a secret). */
  const interpolate = (value: string) =>
    value.replace(/\$\{([A-Z_]+)(?::([-?])([^}]*))?\}/g, (_m, _name: string, kind: string, rest: string) => (kind === '-' ? rest : ''));

  /** The secrets as the README has the operator generate them, in files where compose would mount them. */
  const secretsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-compose-secrets-'));
  const secretValues: Record<string, string> = {
    database_url: 'postgres://agentlink:0123456789abcdef@postgres:5432/agentlink\n',
    encryption_key: `${Buffer.alloc(32, 1).toString('base64')}\n`,
    metrics_token: `${'ab'.repeat(32)}\n`,
    postgres_password: '0123456789abcdef\n',
  };
  for (const [name, value] of Object.entries(secretValues)) fs.writeFileSync(path.join(secretsDir, name), value);
  afterAll(() => fs.rmSync(secretsDir, { recursive: true, force: true }));
  const mounted = (value: string) => value.replace(/^\/run\/secrets\//, `${secretsDir}/`);

  it('runs PostgreSQL, one API process and two workers by default, with role commands that exist', () => {
    const byDefault = agentlink.filter(([, s]) => !s.profiles);
    expect(Object.keys(services)).toContain('postgres');
    expect(byDefault.map(([name, s]) => [name, s.command])).toEqual([
      ['api', ROLE_COMMANDS.api],
      ['worker-1', ROLE_COMMANDS.worker],
      ['worker-2', ROLE_COMMANDS.worker],
    ]);
  });

  it('writes no secret: each is a file under ./secrets, read through the _FILE variant of its variable', () => {
    expect(text).not.toMatch(/POSTGRES_PASSWORD:/);
    expect(text).not.toMatch(/postgres:\/\/[^@\s]*:[^@\s]*@/);
    for (const [name, secret] of Object.entries(compose.secrets)) {
      expect({ name, file: secret.file }).toEqual({ name, file: `./secrets/${name}` });
    }
    expect(services.postgres.environment).toMatchObject({ POSTGRES_PASSWORD_FILE: '/run/secrets/postgres_password' });
    expect(services.postgres.secrets).toEqual(['postgres_password']);
    for (const [name, s] of agentlink) {
      const env = s.environment ?? {};
      for (const variable of SECRET_VARIABLES) expect({ name, variable, set: variable in env }).toEqual({ name, variable, set: false });
      for (const [variable, value] of Object.entries(env).filter(([k]) => k.endsWith('_FILE'))) {
        const secret = /^\/run\/secrets\/([a-z_]+)$/.exec(value)?.[1];
        expect({ variable, granted: s.secrets?.includes(secret ?? '') }).toEqual({ variable, granted: true });
      }
    }
    expect(text).toMatch(/openssl rand -hex 24 > secrets\/postgres_password/);
  });

  it('gives every AgentLink process only configuration variables, with values the configuration accepts', () => {
    for (const [name, s] of agentlink) {
      const env = Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, mounted(interpolate(String(v)))]));
      for (const variable of Object.keys(env))
        expect({ name, variable, known: CONFIG_VARIABLES.includes(variable) }).toEqual({ name, variable, known: true });
      const config = loadConfig(env);
      expect(config.database).toEqual({ type: 'postgres', url: 'postgres://agentlink:0123456789abcdef@postgres:5432/agentlink' });
      expect(config.encryptionKey).toBe(Buffer.alloc(32, 1).toString('base64'));
      expect(config.metricsToken).toBe('ab'.repeat(32));
      expect(config.worker.queue).toBe('pg-boss');
      expect(config.publicUrl).toBe('http://localhost:4000');
      expect(config.signup).toBe('closed');
    }
  });

  it('publishes the API on the host loopback only, and puts Caddy (TLS) in front of it with the tls profile', () => {
    expect(services.api.ports).toEqual(['127.0.0.1:4000:4000']);
    const caddy = services.caddy;
    expect(caddy.profiles).toEqual(['tls']);
    expect(caddy.image).toMatch(/^caddy:2/);
    expect(caddy.command).toEqual(['caddy', 'reverse-proxy', '--from', '${AGENTLINK_DOMAIN:-localhost}', '--to', 'api:4000']);
    expect(caddy.ports).toEqual(expect.arrayContaining(['80:80', '443:443']));
  });

  it('optionally drives a remote Chromium, launched with the flags AgentLink uses, in the worker network namespace', () => {
    const worker = services['worker-remote-browser'];
    const chromium = services.chromium;
    expect(worker.profiles).toEqual(['remote-browser']);
    expect(worker.command).toEqual(ROLE_COMMANDS.worker);
    expect(chromium.network_mode).toBe('service:worker-remote-browser');
    const flags = chromium.entrypoint!;
    for (const flag of CHROMIUM_ARGS) expect(flags).toContain(flag);
    const port = /^--remote-debugging-port=(\d+)$/.exec(flags.find((f) => f.startsWith('--remote-debugging-port='))!)![1];
    expect(flags).toContain('--remote-debugging-address=127.0.0.1');
    const endpoint = worker.environment!.BROWSER_WS_ENDPOINT;
    expect(endpoint).toBe(`http://127.0.0.1:${port}`);
    expect(loadConfig({ BROWSER_WS_ENDPOINT: endpoint }).browser).toEqual({ wsEndpoint: endpoint });
  });
});
