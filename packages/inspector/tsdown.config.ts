import { defineConfig } from 'tsdown';
import shared from '../../tsdown.shared';

// The shared package build, with `__dirname` shimmed in the ESM output: the handler finds the page's
// sources (shipped in `src/page`) beside its own module, to bundle them when it starts.
export default defineConfig({ ...shared, shims: true });
