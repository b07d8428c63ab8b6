import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Browser, Page } from 'playwright-core';
import { collectDocBlocks } from '../../scripts/docBlocks';
import { describeInChromium, launchChromium } from './chromium';

// The approval-app recipe (docs/approval-app.md) taken as written: its server block run by tsx in a real
// process over a file store, its page script bundled by esbuild, its HTML served, all in headless
// Chromium. The server is SIGKILLed while the Approve button shows and started again with the recipe's
// defaults (no lease or retry settings): the page keeps its place, Approve works, the invoice is sent once.
// Every wait is for a state of the page or of the server's output, never for a length of time.

jest.setTimeout(180_000);

const root = join(__dirname, '..', '..');
const guide = 'docs/approval-app.md';
type Build = (options: Record<string, unknown>) => Promise<{ outputFiles: { text: string }[] }>;
const { build } = createRequire(join(root, 'examples', 'package.json'))('esbuild') as { build: Build };

const blocks = collectDocBlocks(root).filter((block) => block.file === guide);
const serverBlock = blocks.find((block) => block.noRun?.includes('runs it as written'));
const pageBlock = blocks.find((block) => block.noRun?.includes('bundles it as written'));
const html = /```html\n([\s\S]*?)```/.exec(readFileSync(join(root, guide), 'utf8'))?.[1];
const draft = 'Invoice for Ada Lovelace: 1250 EUR, due in 30 days.';

/** A port free now, so that the restarted server listens where the page's address points. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.once('error', reject);
  });
}

describeInChromium('the approval-app recipe, as written, in Chromium, through a server restart', () => {
  const directory = join(root, '.tmp', `approval-app-${process.pid}`);
  const runsDir = join(directory, 'runs');
  let port: number;
  let server: ChildProcess | undefined;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  /** Starts the recipe's server as `npx tsx server.ts` would, resolved against the workspace's sources. */
  const startServer = (): Promise<void> => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(directory, 'server.ts')], {
      cwd: directory,
      env: { ...process.env, PORT: String(port), RUNS_DIR: runsDir, TSX_TSCONFIG_PATH: join(root, 'tsconfig.json') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    server = child;
    return new Promise((resolve, reject) => {
      const exited = (code: number | null): void => reject(new Error(`the recipe's server exited (${code}) before it listened`));
      child.once('exit', exited);
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (!line.startsWith('Listening on ')) return;
        child.off('exit', exited);
        resolve();
      });
    });
  };
  const killServer = async (): Promise<void> => {
    const child = server;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };

  beforeAll(async () => {
    expect(serverBlock).toBeDefined();
    expect(pageBlock).toBeDefined();
    expect(html).toBeDefined();
    mkdirSync(runsDir, { recursive: true });
    writeFileSync(join(directory, 'server.ts'), serverBlock!.code);
    writeFileSync(join(directory, 'page.ts'), pageBlock!.code);
    writeFileSync(join(directory, 'index.html'), html!);
    // The guide's one-line esbuild command, through esbuild's API (the workspace's packages from their sources).
    const bundled = await build({ entryPoints: [join(directory, 'page.ts')], tsconfig: join(root, 'tsconfig.base.json'), bundle: true, write: false, format: 'esm', platform: 'browser', logLevel: 'silent' });
    writeFileSync(join(directory, 'page.js'), (bundled.outputFiles[0] as { text: string }).text);
    port = await freePort();
    [, browser] = await Promise.all([startServer(), launchChromium()]);
    page = await browser.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });
  afterAll(async () => {
    await browser?.close();
    await killServer();
    rmSync(directory, { recursive: true, force: true });
  });

  /** Waits for `selector`; when it does not come, says what the page said (its errors, its connection line). */
  const shown = async (selector: string): Promise<void> => {
    try {
      await page.waitForSelector(selector);
    } catch (error) {
      throw new Error(`${(error as Error).message}\npage errors: ${pageErrors.join('; ') || 'none'}; connection: ${await page.textContent('#connection')}`);
    }
  };

  const sentInvoices = (): string[] => {
    try {
      return readFileSync(join(runsDir, 'sent-invoices.jsonl'), 'utf8').split('\n').filter((line) => line !== '');
    } catch {
      return [];
    }
  };

  it('streams the draft, shows Approve, survives a SIGKILL and a restart with the defaults, and sends the invoice once', async () => {
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.click('#start');
    await shown('#approve:not([hidden])');
    expect(await page.textContent('#draft')).toBe(draft);
    expect(sentInvoices()).toEqual([]);

    await killServer();
    await startServer();

    // The page reconnected on its own (no reload): its status line says so once the restarted server streams to it.
    await page.waitForFunction(() => document.querySelector('#connection')?.textContent === 'connected');
    await shown('#approve:not([hidden])');
    await page.click('#approve');
    await page.waitForFunction(() => (document.querySelector('#result')?.textContent ?? '') !== '');
    expect(await page.textContent('#result')).toBe(`Sent: ${draft}`);
    // No event twice, none lost: the draft reads as written once.
    expect(await page.textContent('#draft')).toBe(draft);
    expect(sentInvoices()).toHaveLength(1);
    expect(pageErrors).toEqual([]);
    expect(JSON.parse(sentInvoices()[0] as string)).toMatchObject({ invoice: draft });

    // The inspector beside it lists the run, succeeded.
    const listed = await page.evaluate(async () => ((await (await fetch('/inspector/api/runs')).json()) as { runs: { name: string; status: string }[] }).runs);
    expect(listed.map((run) => `${run.name} ${run.status}`)).toEqual(['invoice succeeded']);
  });

  it('refuses a start body that is not { customer } with a 400, and a foreign Host with a 403', async () => {
    const bad = await fetch(`http://127.0.0.1:${port}/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ customer: 42 }) });
    expect(bad.status).toBe(400);
    const rebound = await new Promise<number>((resolve, reject) => {
      // fetch cannot set Host: a raw request names another host, as a page on a rebound DNS name would.
      const socket = connect(port, '127.0.0.1', () => socket.write(`GET / HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n`));
      let reply = '';
      socket.on('data', (chunk: Buffer) => (reply += chunk.toString()));
      socket.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(reply)?.[1])));
      socket.on('error', reject);
    });
    expect(rebound).toBe(403);
  });
});
