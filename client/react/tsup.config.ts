import { defineConfig } from 'tsup';

/** @agentlink/react: ESM and CommonJS with declarations; React stays a peer (external), the protocol types are bundled in. */
export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  platform: 'browser',
  target: 'es2020',
  tsconfig: 'tsconfig.json',
  external: ['react'],
  outDir: 'dist',
});
