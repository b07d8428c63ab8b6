import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startWebDemo } from '../examples/web/server';
import { chromiumPath, chromiumPresent, launchChromium } from './chromium';

// `pnpm screenshot:web`: the demo page in headless Chromium, photographed mid-debate (the second round
// being written, the first on the timeline) into docs/images/web-demo.png.

const root = fileURLToPath(new URL('..', import.meta.url));
const target = join(root, 'docs', 'images', 'web-demo.png');

async function main(): Promise<void> {
  if (!chromiumPresent) throw new Error(`No Chromium at ${chromiumPath}: apt-get install chromium, or set CHROMIUM_PATH.`);
  const demo = await startWebDemo({ webDir: join(root, 'examples', 'web') });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 500 } });
    await page.goto(demo.url);
    await page.click('#start');
    await page.waitForSelector('#timeline li[data-type="round-end"]');
    await page.waitForFunction(() => {
      const writing = document.querySelector('.panel[data-agent="operator"] .turn:nth-of-type(2)[data-status="running"]');
      return (writing?.textContent ?? '').split(' ').length >= 5;
    });
    mkdirSync(dirname(target), { recursive: true });
    await page.screenshot({ path: target });
    console.log(`Wrote ${target}`);
  } finally {
    await browser.close();
    await demo.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
