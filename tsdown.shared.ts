import { defineConfig } from 'tsdown';

/** The build every package shares: ESM + CJS bundles of src/index.ts with matching .d.mts/.d.cts types. */
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  tsconfig: 'tsconfig.build.json',
  sourcemap: false,
  clean: true,
  // One file per module, so a bundler drops the modules a page does not import (each option schema's zod among them).
  unbundle: true,
  checks: { pluginTimings: false },
});
