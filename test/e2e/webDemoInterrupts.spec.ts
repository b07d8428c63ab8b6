import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { first, firstValueFrom } from 'rxjs';
import type { Browser, Page } from 'playwright-core';
import type { RunEventOf } from '@rxagents/core';
import { fromEventStream } from '@rxagents/web/client';
import { startWebDemo, type WebDemo } from '../../examples/web/server';
import { describeInChromium, launchChromium } from './chromium';

// The demo page's questions to a person (an approval card, an input box) in headless Chromium, against
// the demo server run as `pnpm demo web` runs it: a real process, SIGKILLed and started again on the same
// store directory and port while a question is showing. Every wait is for a state of the page or of the
// server's output, never for a length of time.

jest.setTimeout(120_000);

const root = join(__dirname, '..', '..');

/** The demo server in a child process: `pnpm demo web` on `port` (0: a free one) over the store in `storeDir`. */
interface DemoProcess {
  readonly url: string;
  readonly child: ChildProcess;
}

function startDemoProcess(storeDir: string, port: number): Promise<DemoProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'examples', 'src', 'main.ts'), 'web'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), DEMO_STORE_DIR: storeDir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const exited = (code: number | null): void => reject(new Error(`the demo server exited (${code}) before it served`));
    child.once('exit', exited);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const url = /^Open (http:\/\/\S+)/.exec(line)?.[1];
      if (url === undefined) return;
      child.off('exit', exited);
      resolve({ url, child });
    });
  });
}

/** SIGKILLs the server: nothing of it runs on, as in a crash. */
async function kill(demo: DemoProcess): Promise<void> {
  if (demo.child.exitCode !== null || demo.child.signalCode !== null) return;
  const exited = new Promise((resolve) => demo.child.once('exit', resolve));
  demo.child.kill('SIGKILL');
  await exited;
}

describeInChromium('the demo page: questions to a person that outlive the server', () => {
  let storeDir: string;
  let demo: DemoProcess;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    storeDir = mkdtempSync(join(tmpdir(), 'rxagents-e2e-interrupts-'));
    [demo, browser] = await Promise.all([startDemoProcess(storeDir, 0), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    if (demo !== undefined) await kill(demo);
    rmSync(storeDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(demo.url);
  });
  afterEach(async () => {
    if (!page.isClosed()) await page.close();
  });

  /** Kills the server and starts another on the same store and port (the page's address stays valid). */
  const restart = async (): Promise<void> => {
    const { port } = new URL(demo.url);
    await kill(demo);
    demo = await startDemoProcess(storeDir, Number(port));
  };
  const start = async (scene: 'approval' | 'input', topic?: string): Promise<string> => {
    await page.selectOption('#scene', scene);
    if (topic !== undefined) await page.fill('#topic', topic);
    await page.click('#start');
    await page.waitForSelector('body[data-run-id]');
    return (await page.getAttribute('body', 'data-run-id')) as string;
  };
  /** The open card of a kind, once the page shows it: its interrupt id and the node that asks it. */
  const card = async (kind: 'approval' | 'input'): Promise<{ interruptId: string; callId: string }> => {
    const shown = await page.waitForSelector(`.interrupt[data-kind="${kind}"]`);
    return { interruptId: (await shown.getAttribute('data-interrupt-id')) as string, callId: (await shown.getAttribute('data-call-id')) as string };
  };
  /** The resumed run asked the question again (same id, asked by the call that runs again): the page shows it under its new node. */
  const askedAgain = (asked: { interruptId: string; callId: string }) =>
    page.waitForFunction(({ interruptId, callId }) => {
      const shown = document.querySelector<HTMLElement>(`.interrupt[data-interrupt-id="${interruptId}"]`);
      return shown !== null && shown.dataset['callId'] !== callId;
    }, asked);
  const completed = async (): Promise<void> => {
    await page.waitForSelector(['completed', 'stopped', 'failed'].map((ended) => `#status[data-status="${ended}"]`).join(', '));
    expect(await page.getAttribute('#status', 'data-status')).toBe('completed');
  };
  /** POSTs an answer from the page, as any script on it could: the status. */
  const postAnswer = (runId: string, interruptId: string, answer: unknown): Promise<number> =>
    page.evaluate(
      async ({ runId, interruptId, answer }) =>
        (await fetch(`/api/runs/${encodeURIComponent(runId)}/answers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ interruptId, answer }) })).status,
      { runId, interruptId, answer },
    );

  it('a person approves a tool call on a card that was showing while the server was killed and restarted; the run completes with the tool result', async () => {
    await start('approval');
    const asked = await card('approval');
    expect(await page.textContent('.interrupt .action')).toBe('send_invoice');
    expect(JSON.parse((await page.textContent('.interrupt .args')) ?? '')).toEqual({ customer: 'Ada Lovelace', amount: 1250, currency: 'EUR' });
    expect(await page.textContent('.interrupt .question')).toBe('Allow send_invoice?');

    const { port } = new URL(demo.url);
    await kill(demo);
    // With fromEventStream's default retry the page keeps trying, and says so, while no server answers.
    await page.waitForSelector('#connection[data-state="reconnecting"]:not([hidden])');
    expect(await page.textContent('#connection')).toMatch(/^connection lost, trying again in \d+ s \(try \d+\)$/);
    demo = await startDemoProcess(storeDir, Number(port));
    // Still showing while the page reconnects, then asked again under the same id once the run resumed.
    expect(await page.getAttribute('.interrupt[data-kind="approval"]', 'data-interrupt-id')).toBe(asked.interruptId);
    await askedAgain(asked);
    expect(await page.getAttribute('#connection', 'data-state')).toBe('connected');
    expect(await page.$$eval('.interrupt', (cards) => cards.length)).toBe(1);

    await page.click('.interrupt .approve');
    await completed();
    expect(await page.textContent('#result')).toBe('send_invoice: Invoice sent to Ada Lovelace: 1250 EUR');
    expect(await page.$$eval('.interrupt', (cards) => cards.length)).toBe(0);
    expect(await page.$$eval('#timeline li[data-type="interrupt-end"]', (items) => items.map((item) => item.textContent ?? ''))).toEqual([
      expect.stringContaining('question closed (CALL_INTERRUPTED)'),
      expect.stringContaining('answered'),
    ]);
  });

  it('an input box answered after a restart: a bad answer is refused with the reason shown and the box stays open, a good one finishes the run', async () => {
    await start('input', 'Kyoto');
    const asked = await card('input');
    expect(await page.textContent('.interrupt .question')).toBe('How many days should the trip to Kyoto last? (1 to 14)');

    await restart();
    await askedAgain(asked);

    await page.fill('.interrupt .answer', 'forty');
    await page.click('.interrupt button[type="submit"]');
    await page.waitForSelector('.interrupt[data-state="refused"] .error:not([hidden])');
    expect(await page.textContent('.interrupt .error')).toContain('expected number');
    await page.fill('.interrupt .answer', '40');
    await page.click('.interrupt button[type="submit"]');
    await page.waitForFunction(() => (document.querySelector('.interrupt .error')?.textContent ?? '').includes('<=14'));
    expect(await page.getAttribute('.interrupt', 'data-interrupt-id')).toBe(asked.interruptId);
    expect(await page.getAttribute('#status', 'data-status')).toBe('running');

    await page.fill('.interrupt .answer', '5');
    await page.click('.interrupt button[type="submit"]');
    await completed();
    expect(await page.textContent('#result')).toBe('A 5-day plan for Kyoto is ready.');
  });

  it("a person holding one run's id cannot answer another run's question: 404, and both stay open for their own holders", async () => {
    const alice = await start('approval', 'Alice');
    const aliceAsked = await card('approval');
    const bobRun = await page.evaluate(async () => {
      const response = await fetch('/api/runs', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ scene: 'approval', topic: 'Bob' }) });
      return ((await response.json()) as { runId: string }).runId;
    });
    const bobAsked = (await firstValueFrom(
      fromEventStream(new URL(`api/runs/${bobRun}/events`, demo.url).href).pipe(first((event) => event.type === 'interrupt')),
    )) as RunEventOf<'interrupt'>;

    expect(await postAnswer(alice, bobAsked.interruptId, { approved: true })).toBe(404);
    expect(await postAnswer(bobRun, aliceAsked.interruptId, { approved: true })).toBe(404);
    expect(await postAnswer('3b241101-e2bb-4255-8caf-4136c566a962', bobAsked.interruptId, { approved: true })).toBe(404);

    // Bob's holder answers Bob's; Alice's card is still open and refused on the page with a reason.
    expect(await postAnswer(bobRun, bobAsked.interruptId, { approved: true })).toBe(204);
    await page.fill('.interrupt .reason', 'Alice paid in advance');
    await page.click('.interrupt .reject');
    await completed();
    expect(await page.textContent('#result')).toBe('Invoice not sent: Alice paid in advance');
  });
});

describe('the answer route of the demo server, without a browser', () => {
  let server: WebDemo;
  beforeAll(async () => {
    server = await startWebDemo({ webDir: join(root, 'examples', 'web') });
  });
  afterAll(async () => {
    await server?.close();
  });

  const post = (path: string, body: string, method = 'POST') => fetch(new URL(path, server.url), { method, headers: { 'content-type': 'application/json' }, ...(method === 'POST' ? { body } : {}) });

  it('takes a good answer once; refuses a bad one with the rules broken (never the value), a malformed or oversized body, and another method', async () => {
    const started = await post('api/runs', JSON.stringify({ scene: 'approval', topic: 'Carol' }));
    const { runId } = (await started.json()) as { runId: string };
    const asked = (await firstValueFrom(fromEventStream(new URL(`api/runs/${runId}/events`, server.url).href).pipe(first((event) => event.type === 'interrupt')))) as RunEventOf<'interrupt'>;
    const route = `api/runs/${runId}/answers`;

    const bad = await post(route, JSON.stringify({ interruptId: asked.interruptId, answer: { approved: '<script>steal()</script>' } }));
    expect(bad.status).toBe(422);
    const refused = await bad.text();
    expect(JSON.parse(refused)).toEqual({ error: { code: 'INTERRUPT_ANSWER_INVALID', message: 'The answer does not fit the question', issues: [{ path: 'approved', rule: expect.stringContaining('expected boolean') }] } });
    expect(refused).not.toContain('steal');
    expect((await post(route, 'not json')).status).toBe(400);
    expect((await post(route, JSON.stringify({ interruptId: asked.interruptId }))).status).toBe(400);
    expect((await post(route, JSON.stringify({ interruptId: asked.interruptId, answer: 'x'.repeat(70 * 1_024) }))).status).toBe(413);
    expect((await post(route, '', 'GET')).status).toBe(405);

    expect((await post(route, JSON.stringify({ interruptId: asked.interruptId, answer: { approved: true } }))).status).toBe(204);
    // Answered: the question is closed, a second answer finds nothing open.
    expect((await post(route, JSON.stringify({ interruptId: asked.interruptId, answer: { approved: false } }))).status).toBe(404);
  });
});
