/**
 * The commands the Dockerfile and docker-compose.yml run, in one place: test/ops/production-build.slow.test.ts runs
 * each of them (adding only npm's cache and reporting flags), and test/ops/deploy-files.test.ts checks that the two
 * files run exactly these. No container engine runs in our tests, so this is how they stay honest.
 */
export const DOCKER_BUILD_STAGE = [
  ['npm', 'ci', '--ignore-scripts'],
  ['npm', 'run', 'build'],
];
export const DOCKER_DEPS_STAGE = [['npm', 'ci', '--omit=dev', '--ignore-scripts=false']];

/** The image's default command (= npm run start:prod) and the roles docker-compose.yml starts. */
export const ROLE_COMMANDS = {
  all: ['node', 'dist/server/main.js', 'serve'],
  api: ['node', 'dist/server/main.js', 'serve', '--role', 'api'],
  worker: ['node', 'dist/server/main.js', 'worker'],
} as const;

/** npm flags the test adds to the install commands: offline cache first, no audit or funding chatter. */
export const NPM_TEST_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund'];
