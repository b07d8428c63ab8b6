import { defineConfig } from 'tsdown';

/** The build every package shares: ESM + CJS bundles of src/index.ts with matching .d.mts/.d.cts types. */
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  tsconfig: 'tsconfig.build.json',
  sourcemap: false,
  clean: true,
  checks: { pluginTimings: false },
});
