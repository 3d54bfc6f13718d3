/** @type {import('jest').Config['transform']} */
// Sucrase strips types file by file (tsconfig has isolatedModules; type checking is `npm run typecheck`): on a fresh
// clone, where jest has no transform cache, ts-jest's transpileModule took about 40 ms a file, Sucrase takes a few.
// It keeps what Node 20 runs natively (class fields, optional chaining: disableESTransforms), turns import() into a
// require (CommonJS, as tsconfig's module says) and exports into assignable properties, as TypeScript's CommonJS output
// does (a test may jest.spyOn a module's export). (Not @swc/jest: its platform binaries are not all on the registry,
// which breaks `npm ci` of the lockfile; not esbuild: its exports are getters a spy cannot replace.)
const transform = {
  '^.+\\.tsx?$': [
    '@sucrase/jest-plugin',
    { jsxRuntime: 'automatic', production: true, preserveDynamicImport: false, disableESTransforms: true },
  ],
};

// The SDK packages by name, from their sources (as tsconfig.json's paths map them); the pack test uses their builds.
const packages = {
  '^@agentlink/client$': '<rootDir>/client/src/index.ts',
  '^@agentlink/client/webhooks$': '<rootDir>/client/src/webhooks.ts',
  '^@agentlink/react$': '<rootDir>/client/react/src/index.ts',
};

// Before anything reads the temp folder: the tests' scratch files in memory where /dev/shm has room (memory-tmpdir.js).
require('./test/support/memory-tmpdir').useMemoryTmpdir();

/** @type {import('jest').Config} */
module.exports = {
  // Four on two cores: a browser test waits on its Chromium, its sites and its real budgets part of the time, which
  // other files fill. Measured on this machine, `npm test` (type check and lint beside it at nice 10): 369 and 367 s
  // with four, 359 and 386 s with five (no steady gain, more memory); fresh `npx jest` earlier: 468 s with three, 395 s
  // with four. Three used to be the limit because tests raced a busy machine; those were fixed at their causes.
  maxWorkers: 4,
  // The timeout is read from the global config only (per-project values are ignored).
  testTimeout: 30000,
  // After jest's own report: where the run's time went, per kind of test file (browser, process, postgres, api).
  reporters: ['default', '<rootDir>/test/support/timing-reporter.js'],
  // The longest files first, on a fresh clone too (jest alone knows file times only from its cache of an earlier run).
  testSequencer: '<rootDir>/test/support/longest-first-sequencer.js',
  projects: [
    {
      displayName: 'agentlink',
      testEnvironment: 'node',
      // The sources are roots too (they hold no tests): jest's map of who imports whom must know them, or
      // `npm run test:changed` cannot find the tests a change to server/ or contract/ touches.
      roots: ['<rootDir>/test', '<rootDir>/server', '<rootDir>/contract', '<rootDir>/client', '<rootDir>/openapi'],
      testMatch: ['<rootDir>/test/**/*.test.ts', '<rootDir>/test/**/*.test.tsx'],
      // *.slow.test.ts (the production install and build from clean copies: minutes of npm ci and a sqlite3 compile)
      // run with `npm run test:slow`, *.real.test.ts (the real-app corpus: apps installed on demand into a cache folder)
      // with `npm run test:real-apps`; neither in every `npm test`.
      testPathIgnorePatterns: [
        '/node_modules/',
        ...(process.env.AGENTLINK_SLOW_TESTS ? [] : ['\\.slow\\.test\\.ts$']),
        ...(process.env.AGENTLINK_REAL_APPS ? [] : ['\\.real\\.test\\.ts$']),
      ],
      transform,
      moduleNameMapper: packages,
      setupFilesAfterEnv: ['<rootDir>/test/support/playwright-stacks.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      // The React SDK's tests once more against React 18 (react18 / react-dom18 are npm aliases).
      displayName: 'react18',
      roots: ['<rootDir>/test/react'],
      testMatch: ['**/*.test.tsx'],
      transform,
      moduleNameMapper: {
        ...packages,
        '^react$': 'react18',
        '^react/(.*)$': 'react18/$1',
        '^react-dom$': 'react-dom18',
        '^react-dom/(.*)$': 'react-dom18/$1',
      },
    },
  ],
};
