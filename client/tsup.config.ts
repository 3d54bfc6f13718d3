import { defineConfig } from 'tsup';

/**
 * @agentlink/client: ESM (.mjs) and CommonJS (.js) with their declarations, no dependencies. The contract types and
 * constants it uses are bundled in (relative imports are inlined), so nothing in dist/ points outside the package.
 */
export default defineConfig({
  entry: { index: 'src/index.ts', webhooks: 'src/webhooks.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  platform: 'neutral',
  target: 'es2022',
  tsconfig: 'tsconfig.json',
  outDir: 'dist',
});
