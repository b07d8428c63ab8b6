import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { concat, from } from 'rxjs';
import type { Browser } from 'playwright-core';
import { z } from 'zod';
import { askForInput, defineAgent, invoke$, type RunContext } from '@rxagents/core';
import { createRunRegistry, toWebRequest, writeToNodeResponse } from '@rxagents/web';
import { collectDocBlocks } from '../../scripts/docBlocks';
import { describeInChromium, launchChromium } from './chromium';

// Every Angular component of the guides (the blocks that say "a component needs Angular to render it in a
// page"), taken from the guides as they are, compiled ahead of time by Angular's own compiler (ngc, with
// strict template type-checking), bundled with Angular 21 and rendered zoneless in headless Chromium. Each is
// given the run id of a run that a run registry on loopback serves at `/runs/:runId/events`; the server
// counts the event requests each run has open, so the test sees a new run id and the component's
// destruction close the old request (the fetch aborted by the unsubscription).

jest.setTimeout(120_000);

const root = join(__dirname, '..', '..');
const run = promisify(execFile);
type Build = (options: Record<string, unknown>) => Promise<{ outputFiles: { text: string }[] }>;
const { build } = createRequire(join(root, 'examples', 'package.json'))('esbuild') as { build: Build };
const ngc = join(dirname(require.resolve('@angular/compiler-cli/package.json')), 'bundles', 'src', 'bin', 'ngc.js');
const components = collectDocBlocks(root).filter((block) => block.file.endsWith('.md') && block.noRun?.includes('a component needs Angular to render it in a page'));

// The page's entry: an application without zone.js whose root component puts the guide's component in its
// template, as an app would, its `runId` bound to a signal that starts from the address. Two handles for the
// test: a new run id, and the end of the app.
function hostOf(code: string): string {
  const name = /export class (\w+)/.exec(code)?.[1];
  const selector = /selector: '([\w-]+)'/.exec(code)?.[1];
  if (name === undefined || selector === undefined) throw new Error('an Angular block of the guides exports no component class with a selector');
  return [
    "// Angular's packages ship partly compiled; the compiler links them as the page starts (a CLI build links them ahead of time).",
    "import '@angular/compiler';",
    "import { Component, provideZonelessChangeDetection, signal } from '@angular/core';",
    "import { bootstrapApplication } from '@angular/platform-browser';",
    `import { ${name} } from './block';`,
    '',
    `@Component({ selector: 'app-host', imports: [${name}], template: '<${selector} [runId]="runId()" />' })`,
    'class HostComponent {',
    '  readonly runId = signal(new URLSearchParams(location.search).get("runId") ?? "");',
    '  constructor() {',
    '    Object.assign(window, { setRunId: (runId: string) => this.runId.set(runId) });',
    '  }',
    '}',
    '',
    "document.body.appendChild(document.createElement('app-host'));",
    'const app = await bootstrapApplication(HostComponent, { providers: [provideZonelessChangeDetection()] });',
    'Object.assign(window, { destroyApp: () => app.destroy() });',
  ].join('\n');
}

async function compileAndBundle(directory: string, code: string): Promise<string> {
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, 'block.ts'), code);
  writeFileSync(join(directory, 'main.ts'), hostOf(code));
  writeFileSync(
    join(directory, 'tsconfig.json'),
    JSON.stringify({
      extends: relative(directory, join(root, 'tsconfig.base.json')),
      compilerOptions: { outDir: 'out', rootDir: relative(directory, root), declaration: false, sourceMap: false, types: [], noEmitOnError: true },
      files: ['main.ts'],
      angularCompilerOptions: { strictTemplates: true, strictInjectionParameters: true },
    }),
  );
  // ngc fails (and says where) on a type error in the component's code or in its template.
  await run(process.execPath, [ngc, '-p', join(directory, 'tsconfig.json')], { cwd: directory });
  const entry = join(directory, 'out', relative(root, directory), 'main.js');
  const result = await build({ entryPoints: [entry], tsconfig: join(root, 'tsconfig.base.json'), bundle: true, write: false, format: 'esm', platform: 'browser', target: 'es2022', logLevel: 'silent' });
  return (result.outputFiles[0] as { text: string }).text;
}

/** Resolves once `condition()` holds; fails naming `what` if it does not within 20 s of polling. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 1000 && !condition(); attempt++) await new Promise((resolve) => setTimeout(resolve, 20));
  if (!condition()) throw new Error(`never happened: ${what}`);
}

describeInChromium("the guides' Angular components in Chromium", () => {
  const directory = join(root, '.tmp', `angular-guide-${process.pid}`);
  const registry = createRunRegistry();
  const scripts = new Map<string, string>();
  const open = new Map<string, number>();
  const opened = (runId: string): number => open.get(runId) ?? 0;
  let server: Server;
  let url: string;
  let browser: Browser;

  // A writer writes, then the run waits for a person, so its event request stays open until the page leaves.
  const story = (words: readonly string[]) => (run: RunContext) =>
    concat(invoke$(defineAgent('writer', () => from(words)), 'a story', { run }), askForInput(run, 'Another one?', { schema: z.string() }));

  beforeAll(async () => {
    expect(components.length).toBeGreaterThanOrEqual(2);
    for (const [index, block] of components.entries()) scripts.set(String(index), await compileAndBundle(join(directory, String(index)), block.code));
    browser = await launchChromium();
    server = createServer((req, res) => {
      const request = toWebRequest(req, res);
      const { pathname } = new URL(request.url);
      const script = /^\/block-(\d+)\.js$/.exec(pathname);
      if (script !== null) return void writeToNodeResponse(new Response(scripts.get(script[1] as string) ?? '', { headers: { 'content-type': 'text/javascript' } }), res);
      const page = /^\/page-(\d+)$/.exec(pathname);
      if (page !== null) return void writeToNodeResponse(new Response(`<!doctype html><meta charset="utf-8"><script type="module" src="/block-${page[1]}.js"></script>`, { headers: { 'content-type': 'text/html' } }), res);
      const events = /^\/runs\/([^/]+)\/events$/.exec(pathname);
      if (events !== null) {
        const runId = decodeURIComponent(events[1] as string);
        open.set(runId, opened(runId) + 1);
        res.on('close', () => open.set(runId, opened(runId) - 1));
        return void writeToNodeResponse(registry.response(runId, request), res);
      }
      writeToNodeResponse(new Response('Not found', { status: 404 }), res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await browser?.close();
    registry.close();
    await new Promise((resolve) => server?.close(resolve));
    rmSync(directory, { recursive: true, force: true });
  });

  it.each(components.map((block, index) => [`${block.file}:${block.line}`, index] as const))('%s shows its run, reads a new one when its run id changes, and stops reading when destroyed', async (_where, index) => {
    const first = registry.start('story', 'go', story(['Once ', 'upon ', 'a time']));
    const second = registry.start('story', 'go', story(['A ', 'new ', 'story']));
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    await page.goto(`${url}/page-${index}?runId=${encodeURIComponent(first.runId)}`);
    await page.waitForFunction(() => document.body.textContent?.includes('writer: Once upon a time'));
    expect(opened(first.runId)).toBe(1);

    await page.evaluate((runId) => (window as unknown as { setRunId(runId: string): void }).setRunId(runId), second.runId);
    await page.waitForFunction(() => document.body.textContent?.includes('writer: A new story') && !document.body.textContent.includes('Once upon'));
    await eventually(() => opened(first.runId) === 0, 'the first run\'s event request closed after the run id changed');
    expect(opened(second.runId)).toBe(1);

    await page.evaluate(() => (window as unknown as { destroyApp(): void }).destroyApp());
    await eventually(() => opened(second.runId) === 0, 'the event request closed when the component was destroyed');
    // The page left; the runs are the server's and go on waiting for their person.
    expect(registry.list().filter((summary) => summary.runId === first.runId || summary.runId === second.runId).map((summary) => summary.status)).toEqual(['running', 'running']);
    expect(failures).toEqual([]);
    await page.close();
  });
});
