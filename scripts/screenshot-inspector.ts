import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumPath, chromiumPresent, launchChromium } from './chromium';
import { pollUntil, showAwaitingApproval, showFailedRun, showLiveDebate, showResumedRun, showScrubbedChoreography, startInspectorFixture } from './inspectorScenes';

// `pnpm screenshot:inspector`: the run inspector in headless Chromium, photographed in the five states
// its browser tests check, into docs/images/inspector-live.png, inspector-scrubbed.png,
// inspector-failed.png, inspector-resumed.png and inspector-handoff.png.

const images = join(fileURLToPath(new URL('..', import.meta.url)), 'docs', 'images');

async function main(): Promise<void> {
  if (!chromiumPresent) throw new Error(`No Chromium at ${chromiumPath}: apt-get install chromium, or set CHROMIUM_PATH.`);
  mkdirSync(images, { recursive: true });
  const fixture = await startInspectorFixture();
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 820 } });
    const live = await showLiveDebate(page, fixture);
    await page.screenshot({ path: join(images, 'inspector-live.png'), fullPage: true });
    // The rest of the debate let through, so that the list shows it finished in the next pictures.
    let finished = false;
    void live.done.then(() => (finished = true));
    await pollUntil(() => Promise.resolve(finished), () => live.held.release(100));
    await showScrubbedChoreography(page, fixture);
    await page.screenshot({ path: join(images, 'inspector-scrubbed.png'), fullPage: true });
    await showFailedRun(page, fixture);
    await page.screenshot({ path: join(images, 'inspector-failed.png'), fullPage: true });
    await showResumedRun(page, fixture);
    await page.screenshot({ path: join(images, 'inspector-resumed.png'), fullPage: true });
    const waiting = await showAwaitingApproval(page, fixture);
    try {
      await page.screenshot({ path: join(images, 'inspector-handoff.png'), fullPage: true });
    } finally {
      waiting.approve();
    }
    await waiting.done;
    console.log(`Wrote ${['live', 'scrubbed', 'failed', 'resumed', 'handoff'].map((name) => join(images, `inspector-${name}.png`)).join(', ')}`);
  } finally {
    await browser.close();
    await fixture.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
