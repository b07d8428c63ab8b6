import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Where Chromium is: `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium` (never a downloaded browser). */
export const chromiumPath = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/** Whether Chromium is installed where {@link chromiumPath} says. */
export const chromiumPresent = existsSync(chromiumPath);

/** Headless Chromium, started the same way by the browser tests and the screenshot script. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}
