import fs from 'node:fs';

import { removeMigratedTemplates } from './store-templates';

export default async function globalTeardown() {
  removeMigratedTemplates();
  const instance = globalThis.__AGENTLINK_TEST_PG__;
  if (!instance) return;
  globalThis.__AGENTLINK_TEST_PG__ = undefined;
  await instance.pg.stop();
  fs.rmSync(instance.dataDir, { recursive: true, force: true });
}
