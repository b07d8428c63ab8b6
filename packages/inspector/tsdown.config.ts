import { defineConfig } from 'tsdown';
import shared from '../../tsdown.shared';

// The shared package build, bundled into one file per format with `__dirname` shimmed in the ESM one:
// the handler finds the page's sources (shipped in `src/page`) from its own module's directory, which a
// shim in a module of its own (the unbundled build) would not know.
export default defineConfig({ ...shared, unbundle: false, shims: true });
