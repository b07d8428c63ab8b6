// The shared package build with a second, browser-safe entry: `@rxagents/web/client`.
import { defineConfig } from 'tsdown';
import shared from '../../tsdown.shared';

export default defineConfig({ ...shared, entry: ['src/index.ts', 'src/client.ts'] });
