import { createRequire } from 'node:module';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { concat, from, map } from 'rxjs';
import type { Browser } from 'playwright-core';
import { askForApproval, defineAgent, invoke$, type RunContext } from '@rxagents/core';
import { createRunRegistry, toWebRequest, writeToNodeResponse } from '@rxagents/web';
import { collectDocBlocks } from '../../scripts/docBlocks';
import { describeInChromium, launchChromium, until } from './chromium';

// Every React component of the guides and READMEs (the blocks that say "a component needs React to render it in a
// page"), taken from the guides as they are, bundled with React 19 and rendered in headless Chromium with
// the `runId` of a run that a run registry on loopback serves at `/runs/:runId/events` (and answers at
// `/runs/:runId/answers`): a writer writes, then the run asks for approval to publish.

jest.setTimeout(90_000);

const root = join(__dirname, '..', '..');
type Build = (options: Record<string, unknown>) => Promise<{ outputFiles: { text: string }[] }>;
const { build } = createRequire(join(root, 'examples', 'package.json'))('esbuild') as { build: Build };
const components = collectDocBlocks(root).filter((block) => block.file.endsWith('.md') && block.noRun?.includes('a component needs React to render it in a page'));

async function bundle(directory: string, code: string): Promise<string> {
  writeFileSync(join(directory, 'block.ts'), code);
  writeFileSync(
    join(directory, 'main.ts'),
    [
      "import { createElement } from 'react';",
      "import { createRoot } from 'react-dom/client';",
      "import * as block from './block';",
      'const Component = Object.values(block).find((value) => typeof value === "function") as (props: { runId: string }) => unknown;',
      'const runId = new URLSearchParams(location.search).get("runId") ?? "";',
      "createRoot(document.getElementById('root')!).render(createElement(Component as never, { runId }));",
    ].join('\n'),
  );
  const result = await build({ entryPoints: [join(directory, 'main.ts')], tsconfig: join(root, 'tsconfig.base.json'), bundle: true, write: false, format: 'esm', platform: 'browser', target: 'es2022', define: { 'process.env.NODE_ENV': '"production"' }, logLevel: 'silent' });
  return (result.outputFiles[0] as { text: string }).text;
}

describeInChromium("the guides' React components in Chromium", () => {
  const directory = join(root, '.tmp', `react-guide-${process.pid}`);
  const registry = createRunRegistry();
  const scripts = new Map<string, string>();
  let server: Server;
  let url: string;
  let browser: Browser;

  const writer = defineAgent('writer', () => from(['Once ', 'upon ', 'a time']));
  const story = (run: RunContext) =>
    concat(
      invoke$(writer, 'a story', { run }),
      askForApproval(run, 'publish', { title: 'Story' }, { question: 'Publish the story?' }).pipe(map((decision) => (decision.approved ? 'published' : 'kept'))),
    );

  beforeAll(async () => {
    expect(components.length).toBeGreaterThanOrEqual(4);
    for (const [index, block] of components.entries()) {
      const own = join(directory, String(index));
      mkdirSync(own, { recursive: true });
      scripts.set(String(index), await bundle(own, block.code));
    }
    browser = await launchChromium();
    server = createServer((req, res) => {
      void (async () => {
        const request = toWebRequest(req, res);
        const { pathname } = new URL(request.url);
        const script = /^\/block-(\d+)\.js$/.exec(pathname);
        if (script !== null) return writeToNodeResponse(new Response(scripts.get(script[1] as string) ?? '', { headers: { 'content-type': 'text/javascript' } }), res);
        const page = /^\/page-(\d+)$/.exec(pathname);
        if (page !== null) return writeToNodeResponse(new Response(`<!doctype html><meta charset="utf-8"><div id="root"></div><script type="module" src="/block-${page[1]}.js"></script>`, { headers: { 'content-type': 'text/html' } }), res);
        const run = /^\/runs\/([^/]+)\/(events|answers)$/.exec(pathname);
        if (run !== null) {
          const runId = decodeURIComponent(run[1] as string);
          return writeToNodeResponse(run[2] === 'events' ? registry.response(runId, request) : await registry.handleAnswer(runId, request), res);
        }
        return writeToNodeResponse(new Response('Not found', { status: 404 }), res);
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    rmSync(directory, { recursive: true, force: true });
  });

  it.each(components.map((block, index) => [`${block.file}:${block.line}`, index] as const))('%s renders the run it is given', async (_where, index) => {
    const { runId } = registry.start('story', 'go', story);
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    await page.goto(`${url}/page-${index}?runId=${encodeURIComponent(runId)}`);
    // Each component shows the run: the writer's text, its question, or how many questions wait.
    await page.waitForFunction(() => /Once upon a time|Publish the story\?|1 question\(s\) waiting/.test(document.body.textContent ?? ''));
    // A component with an Approve button answers the run's question through the registry's answer route.
    const approve = await page.$('button:has-text("Approve")');
    if (approve !== null) await approve.click();
    expect(failures).toEqual([]);
    await page.close();
    if (approve !== null) await until(() => registry.list().some((summary) => summary.runId === runId && summary.status === 'succeeded'));
  });
});
