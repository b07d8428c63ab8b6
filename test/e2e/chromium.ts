import { chromiumPath, chromiumPresent } from '../../scripts/chromium';

export { launchChromium } from '../../scripts/chromium';

if (!chromiumPresent) {
  console.warn(`Browser tests skipped: no Chromium at ${chromiumPath} (apt-get install chromium, or set CHROMIUM_PATH).`);
}

/** `describe` when Chromium is installed, else `describe.skip` (after one line saying why). */
export const describeInChromium: jest.Describe = chromiumPresent ? describe : describe.skip;

/** Resolves once `condition()` holds, checking every `everyMs`; for states only the server can see. */
export async function until(condition: () => boolean, everyMs = 20): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, everyMs));
}
