import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import vm from 'node:vm';

import { build } from 'esbuild';

import { standardWebhookSignature, webhookSignatureHeader } from '../../server/domain/webhooks/signature';
import { createTestApp, type TestApp } from '../support/app';
import { connectSandbox, createOrg, type TestOrg } from '../support/helpers';

/**
 * The packages as a consumer gets them: built, packed with `npm pack`, installed from the tarballs into a project
 * outside the repository with `npm install --offline` (React and its types too, packed from this install, so nothing
 * reaches the network), then used from plain Node as ESM and as CommonJS against a live AgentLink, type-checked by tsc
 * with moduleResolution nodenext and bundler, and bundled by esbuild for the browser.
 */
const ROOT = path.join(__dirname, '..', '..');
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const run = promisify(execFile);
const sh = (cmd: string, args: string[], cwd: string, env: Record<string, string> = {}) =>
  run(cmd, args, { cwd, env: { ...process.env, ...env }, timeout: 180_000, maxBuffer: 32 * 1024 * 1024 });

/**
 * npm pack of folders into `dest`, by one npm (each npm start costs the machine about a second of CPU); the tarballs'
 * paths and the files each holds, in the folders' order.
 */
async function pack(dirs: string[], dest: string): Promise<{ tarball: string; files: string[] }[]> {
  const { stdout } = await sh('npm', ['pack', ...dirs, '--json', '--ignore-scripts', '--pack-destination', dest], dest);
  const infos = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  if (infos.length !== dirs.length) throw new Error(`npm pack made ${infos.length} tarballs for ${dirs.length} folders`);
  return infos.map((info) => ({ tarball: path.join(dest, info.filename), files: info.files.map((f) => f.path).sort() }));
}

/** The folder a package resolves to from `from` (its nested copy when it has one). */
const packageDir = (name: string, from = ROOT) => path.dirname(require.resolve(`${name}/package.json`, { paths: [from] }));

describe('@agentlink/client and @agentlink/react as packed tarballs, in a project outside the repository', () => {
  let work: string;
  let project: string;
  let t: TestApp;
  let org: TestOrg;
  const packed: Record<string, { tarball: string; files: string[] }> = {};

  beforeAll(async () => {
    await sh('npm', ['run', 'build:packages'], ROOT);
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'agentlink-packages-'));
    project = path.join(work, 'consumer');
    fs.mkdirSync(project);
    const deps = [
      packageDir('react'),
      packageDir('react-dom'),
      packageDir('scheduler', packageDir('react-dom')),
      packageDir('@types/react'),
      packageDir('csstype', packageDir('@types/react')),
    ];
    const [client, react, ...depPacks] = await pack([path.join(ROOT, 'client'), path.join(ROOT, 'client', 'react'), ...deps], work);
    packed.client = client!;
    packed.react = react!;
    const depTarballs = depPacks.map((p) => p.tarball);
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
    // An empty cache of its own: proof that the install needs nothing but the tarballs.
    await sh(
      'npm',
      [
        'install',
        '--offline',
        '--cache',
        path.join(work, 'npm-cache'),
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        packed.client.tarball,
        packed.react.tarball,
        ...depTarballs,
      ],
      project,
    );
    t = await createTestApp('sqlite');
    org = await createOrg(t, 'Packages Co');
    await connectSandbox(t, org, { clientUserId: 'pkg-user' });
  }, 400_000);

  afterAll(async () => {
    await t?.close();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('packs only the built files: ESM, CommonJS, declarations, package.json and README', () => {
    expect(packed.client.files.every((f) => /^(dist\/[\w-]+\.(mjs|js|d\.mts|d\.ts)|package\.json|README\.md)$/.test(f))).toBe(true);
    expect(packed.client.files).toEqual(
      expect.arrayContaining(['dist/index.mjs', 'dist/index.js', 'dist/index.d.ts', 'dist/webhooks.mjs', 'dist/webhooks.d.mts']),
    );
    expect(packed.react.files).toEqual([
      'README.md',
      'dist/index.d.mts',
      'dist/index.d.ts',
      'dist/index.js',
      'dist/index.mjs',
      'package.json',
    ]);
    const installed = path.join(project, 'node_modules', '@agentlink');
    for (const pkg of ['client', 'react']) {
      const manifest = JSON.parse(fs.readFileSync(path.join(installed, pkg, 'package.json'), 'utf8'));
      expect(manifest.dependencies ?? {}).toEqual({});
      for (const file of fs.readdirSync(path.join(installed, pkg, 'dist'))) {
        const text = fs.readFileSync(path.join(installed, pkg, 'dist', file), 'utf8');
        // Nothing points outside the package: no relative path up, no zod, ts-rest or Node built-in.
        expect({ file, outside: /from ['"]\.\.\/|require\(['"]\.\.\/|['"](zod|@ts-rest\/[\w-]+|node:[\w/]+)['"]/.test(text) }).toEqual({
          file,
          outside: false,
        });
      }
    }
    expect(JSON.parse(fs.readFileSync(path.join(installed, 'react', 'package.json'), 'utf8')).peerDependencies).toEqual({
      react: '^18.0.0 || ^19.0.0',
    });
  });

  /** The same checks from ESM and from CommonJS: a live call, a typed error, a list, a webhook, the hook rendered on the server. */
  function consumerScript(kind: 'esm' | 'cjs'): string {
    const imports =
      kind === 'esm'
        ? `import { createAgentLinkClient, NotFoundError, AgentLinkResponseError } from '@agentlink/client';
import { verifyWebhook } from '@agentlink/client/webhooks';
import { useAgentLink } from '@agentlink/react';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';`
        : `const { createAgentLinkClient, NotFoundError, AgentLinkResponseError } = require('@agentlink/client');
const { verifyWebhook } = require('@agentlink/client/webhooks');
const { useAgentLink } = require('@agentlink/react');
const { createElement } = require('react');
const { renderToString } = require('react-dom/server');`;
    return `${imports}
const env = JSON.parse(process.env.CHECK);
(async () => {
  const client = createAgentLinkClient({ baseUrl: env.baseUrl, clientId: env.clientId, clientSecret: env.clientSecret });
  const { providers } = await client.providers.listProviders();
  const missing = await client.connections.getConnection({ params: { connectionId: 'conn_nope' } }).catch((e) => e);
  const users = [];
  for await (const c of client.connections.listConnections({ query: { limit: 1 } })) users.push(c.clientUserId);
  const html = await createAgentLinkClient({ baseUrl: env.baseUrl + '/dashboard', clientId: 'x', clientSecret: 'y', maxRetries: 0 })
    .providers.listProviders().catch((e) => e);
  const standard = await verifyWebhook({ payload: env.body, headers: env.headers, secret: env.secret, now: env.now });
  const legacy = await verifyWebhook({ payload: env.body, header: env.headers['agentlink-signature'], secret: env.secret, now: env.now });
  function Connect({ linkToken }) {
    const { ready } = useAgentLink({ linkToken, backendUrl: env.baseUrl, env: 'sandbox', onSuccess() {}, onError() {} });
    return createElement('button', { disabled: !ready }, 'Connect');
  }
  const page = createElement('div', null, createElement(Connect, { linkToken: '' }), createElement(Connect, { linkToken: 'link-sandbox-abc' }));
  console.log(JSON.stringify({
    providers: providers.length,
    missing: [missing instanceof NotFoundError, missing.code, missing.status, typeof missing.requestId],
    users,
    html: html instanceof AgentLinkResponseError || html.constructor.name,
    events: [standard.eventId, legacy.eventId],
    rendered: renderToString(page),
  }));
})().catch((e) => { console.error(e); process.exit(1); });
`;
  }

  it.each(['esm', 'cjs'] as const)(
    'works from plain node as %s against a live AgentLink',
    async (kind) => {
      const file = path.join(project, kind === 'esm' ? 'check.mjs' : 'check.cjs');
      fs.writeFileSync(file, consumerScript(kind));
      const body = JSON.stringify({ eventId: 'evt_pkg', type: 'CONNECTION.CREATED' });
      const secret = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
      const ts = 1_767_268_800;
      const check = {
        baseUrl: t.baseUrl,
        clientId: org.clientId,
        clientSecret: org.sandboxSecret,
        body,
        secret,
        now: ts * 1000,
        headers: {
          'webhook-id': 'evt_pkg',
          'webhook-timestamp': String(ts),
          'webhook-signature': standardWebhookSignature(secret, 'evt_pkg', ts, body),
          'agentlink-signature': webhookSignatureHeader(secret, ts, body),
        },
      };
      const { stdout } = await sh(process.execPath, [file], project, { CHECK: JSON.stringify(check) });
      expect(JSON.parse(stdout)).toEqual({
        providers: expect.any(Number),
        missing: [true, 'CONNECTION_NOT_FOUND', 404, 'string'],
        users: ['pkg-user'],
        html: true,
        events: ['evt_pkg', 'evt_pkg'],
        // Server rendering: not ready while the link token loads, ready once it is set; nothing touches window.
        rendered: '<div><button disabled="">Connect</button><button>Connect</button></div>',
      });
    },
    60_000,
  );

  const typesCheck = `
import { AgentLinkApiError, type ApiErrorCode, type Connection, createAgentLinkClient, type RequestOptions } from '@agentlink/client';
import { verifyWebhook, type WebhookEvent } from '@agentlink/client/webhooks';
import { useAgentLink, type UseAgentLinkResult } from '@agentlink/react';

const client = createAgentLinkClient({ baseUrl: 'https://agentlink.example.com', clientId: 'id', clientSecret: 'secret' });

export async function listAll(options: RequestOptions): Promise<Connection[]> {
  const out: Connection[] = [];
  for await (const c of client.connections.listConnections({ query: { clientUserId: 'u', status: 'ACTIVE' } }, options)) out.push(c);
  const first = await client.connections.listConnections();
  const next: string | null = first.nextCursor;
  void next;
  const { linkToken } = await client.link.createLinkToken({ body: { clientUserId: 'u' } });
  const token: string = linkToken;
  void token;
  try {
    await client.connections.getConnection({ params: { connectionId: 'c' } });
  } catch (err) {
    if (err instanceof AgentLinkApiError) {
      const code: ApiErrorCode = err.code;
      const status: number = err.status;
      const requestId: string | null = err.requestId;
      void [code, status, requestId];
    }
  }
  // @ts-expect-error not a documented error code
  const bad: ApiErrorCode = 'NOT_A_CODE';
  // @ts-expect-error status is one of the connection statuses
  void client.connections.listConnections({ query: { status: 'GONE' } });
  // @ts-expect-error the body is required
  void client.link.createLinkToken();
  // @ts-expect-error params are required
  void client.connections.getConnection({});
  void bad;
  return out;
}

export async function onWebhook(body: string, headers: Headers): Promise<WebhookEvent['type']> {
  return (await verifyWebhook({ payload: body, headers, secret: 'whsec_x' })).type;
}

export function useConnect(linkToken: string): UseAgentLinkResult {
  return useAgentLink({ linkToken, backendUrl: 'https://agentlink.example.com', env: 'sandbox', onSuccess() {}, onError() {}, onLoad() {} });
}
`;

  it.each([
    ['nodenext (ESM and CommonJS)', { module: 'nodenext', moduleResolution: 'nodenext' }, ['types.mts', 'types.cts']],
    ['bundler', { module: 'esnext', moduleResolution: 'bundler' }, ['types.ts']],
  ] as const)(
    'type-checks with tsc, moduleResolution %s, our declarations included',
    async (_label, options, files) => {
      for (const f of files) fs.writeFileSync(path.join(project, f), typesCheck);
      const config = path.join(project, `tsconfig.${options.moduleResolution}.json`);
      fs.writeFileSync(
        config,
        JSON.stringify({
          compilerOptions: {
            ...options,
            target: 'es2022',
            lib: ['es2022', 'dom', 'dom.iterable'],
            strict: true,
            noEmit: true,
            skipLibCheck: false,
            types: [],
          },
          files,
        }),
      );
      await expect(sh(process.execPath, [TSC, '-p', config], project)).resolves.toBeDefined();
    },
    120_000,
  );

  it('bundles for the browser with esbuild: the client, its webhooks entry and the hook, with no Node built-in', async () => {
    const entry = path.join(project, 'browser.ts');
    fs.writeFileSync(
      entry,
      `import { createAgentLinkClient } from '@agentlink/client';
import { verifyWebhook } from '@agentlink/client/webhooks';
import { useAgentLink } from '@agentlink/react';
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
function App() {
  const { open, ready } = useAgentLink({ linkToken: 'link-sandbox-abc', backendUrl: location.origin, env: 'sandbox', onSuccess() {}, onError() {} });
  return createElement('button', { disabled: !ready, onClick: () => open() }, 'Connect');
}
createRoot(document.getElementById('root')!).render(createElement(App));
(window as unknown as Record<string, unknown>).agentlink = { createAgentLinkClient, verifyWebhook };
`,
    );
    const result = await build({
      entryPoints: [entry],
      absWorkingDir: project,
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
      define: { 'process.env.NODE_ENV': '"production"' },
    });
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((i) => i.includes('node_modules/@agentlink/client/dist/index.mjs'))).toBe(true);
    expect(inputs.some((i) => i.includes('node_modules/@agentlink/client/dist/webhooks.mjs'))).toBe(true);
    expect(inputs.some((i) => i.includes('node_modules/@agentlink/react/dist/index.mjs'))).toBe(true);
    const code = result.outputFiles[0].text;
    expect(code).toContain('agentlink:init');
    expect(code).not.toMatch(/node:crypto|require\(["']crypto["']\)/);
  }, 60_000);
  it('runs in a bare realm with only web platform globals, as edge runtimes have (no process, Buffer or require)', async () => {
    const entry = path.join(project, 'edge.ts');
    fs.writeFileSync(
      entry,
      `import { createAgentLinkClient, NotFoundError } from '@agentlink/client';
import { verifyWebhook } from '@agentlink/client/webhooks';
export async function main(env: { baseUrl: string; clientId: string; clientSecret: string; body: string; headers: Record<string, string>; secret: string; now: number }) {
  const client = createAgentLinkClient({ baseUrl: env.baseUrl, clientId: env.clientId, clientSecret: env.clientSecret });
  const { providers } = await client.providers.listProviders();
  const created = await client.link.createLinkToken({ body: { clientUserId: 'edge-user' } });
  const missing = await client.agentRequests.getAgentRequest({ params: { requestId: 'areq_nope' } }).catch((e: unknown) => e);
  const event = await verifyWebhook({ payload: env.body, headers: env.headers, secret: env.secret, now: env.now });
  return { providers: providers.length, linkToken: created.linkToken.slice(0, 13), missing: missing instanceof NotFoundError ? missing.code : String(missing), eventId: event.eventId };
}`,
    );
    const result = await build({
      entryPoints: [entry],
      absWorkingDir: project,
      bundle: true,
      platform: 'neutral',
      format: 'iife',
      globalName: 'edge',
      write: false,
      logLevel: 'silent',
    });
    const g = globalThis as unknown as Record<string, unknown>;
    const webGlobals = [
      'fetch',
      'Headers',
      'Request',
      'Response',
      'URL',
      'URLSearchParams',
      'AbortController',
      'AbortSignal',
      'TextEncoder',
      'TextDecoder',
      'crypto',
      'atob',
      'btoa',
      'setTimeout',
      'clearTimeout',
      'console',
    ];
    const context = vm.createContext(Object.fromEntries(webGlobals.map((name) => [name, g[name]])));
    vm.runInContext(result.outputFiles[0].text, context);
    expect(vm.runInContext('[typeof process, typeof Buffer, typeof require]', context)).toEqual(['undefined', 'undefined', 'undefined']);
    const body = JSON.stringify({ eventId: 'evt_edge', type: 'CONNECTION.REVOKED' });
    const secret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
    const ts = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': 'evt_edge',
      'webhook-timestamp': String(ts),
      'webhook-signature': standardWebhookSignature(secret, 'evt_edge', ts, body),
    };
    const main = (context.edge as { main: (env: unknown) => Promise<unknown> }).main;
    const env = { baseUrl: t.baseUrl, clientId: org.clientId, clientSecret: org.sandboxSecret, body, headers, secret, now: ts * 1000 };
    await expect(main(env)).resolves.toEqual({
      providers: expect.any(Number),
      linkToken: 'link-sandbox-',
      missing: 'AGENT_REQUEST_NOT_FOUND',
      eventId: 'evt_edge',
    });
  }, 60_000);
});
