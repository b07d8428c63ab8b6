// The shared package build with a second, Node-only entry: `@rxagents/core/file-store`.
import { defineConfig } from 'tsdown';
import shared from '../../tsdown.shared';

export default defineConfig({ ...shared, entry: ['src/index.ts', 'src/file-store.ts'] });
