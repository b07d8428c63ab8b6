import { Agent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { first, firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import type { Browser, Page } from 'playwright-core';
import { reduceRunView, emptyRunView, type RunEvent, type RunEventOf } from '@rxagents/core';
import { fromEventStream } from '@rxagents/web/client';
import { startWebDemo, type WebDemo } from '../../examples/web/server';
import { describeInChromium, launchChromium, until } from './chromium';

// The demo page in headless Chromium against the real demo server (in this process, so the test can
// see what the server sees: which agent calls are still running, which were aborted). Every wait is for
// a state of the page or of the server, never for a length of time.

jest.setTimeout(30_000);

describeInChromium('the web demo page in Chromium', () => {
  let demo: WebDemo;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    // A reload must reconnect within the grace period or its run is cancelled (and never completes). 3 s
    // leaves room for a slow reload on a loaded machine; the closed-tab test waits that long for the abort.
    [demo, browser] = await Promise.all([startWebDemo({ webDir: join(__dirname, '..', '..', 'examples', 'web'), viewerGraceMs: 3_000 }), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await demo?.close();
  });
  beforeEach(async () => {
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(demo.url);
  });
  afterEach(async () => {
    if (!page.isClosed()) await page.close();
  });

  const start = async (options: { scene?: 'debate' | 'article'; speed?: '15' | '40' | '150'; human?: boolean; topic?: string } = {}): Promise<string> => {
    await page.selectOption('#scene', options.scene ?? 'debate');
    await page.selectOption('#speed', options.speed ?? '15');
    if (options.topic !== undefined) await page.fill('#topic', options.topic);
    if (options.human === true) await page.check('#human');
    await page.click('#start');
    await page.waitForSelector('body[data-run-id]');
    return (await page.getAttribute('body', 'data-run-id')) as string;
  };
  /** Waits for the run to end on the page and expects `value`: a run that ended otherwise fails here, naming its status, not on the test's timeout. */
  const status = async (value: 'completed' | 'stopped'): Promise<void> => {
    await page.waitForSelector(['completed', 'stopped', 'failed'].map((ended) => `#status[data-status="${ended}"]`).join(', '));
    expect(await page.getAttribute('#status', 'data-status')).toBe(value);
  };
  /** A turn on the page that is still being written and already has text: tokens arrive as they stream. */
  const aTurnMidway = () => page.waitForFunction(() => [...document.querySelectorAll('.turn[data-status="running"]')].some((turn) => (turn.textContent ?? '').trim() !== ''));
  /** Every call the server made for the run ended, and at least one was aborted. */
  const everyAgentAborted = async (runId: string): Promise<void> => {
    await until(() => !demo.isRunning(runId) && demo.agentCalls(runId).every((call) => call.state !== 'running'));
    expect(demo.agentCalls(runId).some((call) => call.state === 'aborted')).toBe(true);
  };
  /** All of a run's events, read from the server as a late viewer. */
  const serverEvents = (runId: string): Promise<RunEvent[]> => lastValueFrom(fromEventStream(new URL(`api/runs/${runId}/events`, demo.url).href).pipe(toArray()));

  it('streams a debate into the page, token by token, and shows the result, the rounds and the metrics', async () => {
    const runId = await start();
    await aTurnMidway();
    await page.waitForFunction(() => Number(document.querySelector('tr[data-source="architecture-debate"] td.delivered')?.textContent) >= 1);
    await status('completed');
    // The result is the judge's verdict, not the transcript again (the turns are in the Agents panel).
    expect(await page.textContent('#result')).toBe('judge: CONVERGED: extract billing only, same pipeline, capped budget.');
    expect(await page.textContent('.panel[data-agent="judge"]')).toContain('CONVERGED: extract billing only');
    expect(await page.textContent('#run-topic')).toBe('Topic: Should we split the monolith this year?');
    expect(await page.$$eval('#timeline li[data-type="round-end"]', (items) => items.length)).toBe(3);
    expect(await page.textContent('tr[data-source="architecture-debate"] td.delivered')).toBe('9');
    expect(await page.textContent('tr[data-source="architecture-debate"] td.dropped')).toBe('0');
    expect(demo.agentCalls(runId).map((call) => call.state)).toEqual(Array(12).fill('ended'));
  });

  it('runs the article choreography on the topic typed: each agent a panel, its steps on the timeline', async () => {
    await start({ scene: 'article', topic: 'Backpressure for people' });
    await aTurnMidway();
    expect(await page.textContent('#metrics')).toBe('No channel yet.');
    await status('completed');
    expect(await page.$$eval('.panel', (panels) => panels.map((panel) => panel.getAttribute('data-agent')))).toEqual(['researcher', 'writer', 'reviewer']);
    expect(await page.textContent('#run-topic')).toBe('Topic: Backpressure for people');
    expect(await page.textContent('.panel[data-agent="writer"] .turn')).toBe('Backpressure for people: a draft.');
    expect(await page.textContent('.panel[data-agent="reviewer"] .turn')).toBe('Approved, ship it.');
    expect(await page.textContent('#result')).toBe('Approved, ship it.');
    const steps = await page.$$eval('#timeline li[data-type="step"]', (items) => items.map((item) => item.textContent));
    expect(steps).toEqual([expect.stringContaining('step research by researcher: done'), expect.stringContaining('step draft by writer: done'), expect.stringContaining('step review by reviewer: done')]);
    const raised = await page.$$eval('#timeline li[data-type="choreography-event"]', (items) => items.map((item) => item.textContent ?? ''));
    expect(raised[0]).toMatch(/event start raised by the run$/);
    expect(raised.join('\n')).not.toContain('null');
    // The run is over and used no channel: the panel says so rather than waiting for one.
    expect(await page.textContent('#metrics')).toBe('This run used no channel.');
  });

  it('a reload mid-run shows the choices the run was started with, and the scripted debaters argue the topic typed', async () => {
    const runId = await start({ speed: '150', topic: 'Ship on Friday?' });
    await page.waitForFunction(() => (document.querySelector('.panel[data-agent="architect"] .turn')?.textContent ?? '').includes('Friday'));
    await page.reload();
    await page.waitForSelector('#resumed[data-after]:not([data-after="0"])');
    expect(await page.$eval('#speed', (select) => (select as HTMLSelectElement).value)).toBe('150');
    expect(await page.$eval('#topic', (input) => (input as HTMLInputElement).value)).toBe('Ship on Friday?');
    expect(await page.textContent('#run-topic')).toBe('Topic: Ship on Friday?');
    expect(await page.textContent('.panel[data-agent="architect"] .turn')).toContain('On "Ship on Friday?"');
    await page.click('#stop');
    await status('stopped');
    await everyAgentAborted(runId);
  });

  it('Stop cancels the run on the server: every agent still running is aborted', async () => {
    const runId = await start({ speed: '150' });
    await aTurnMidway();
    await page.click('#stop');
    await status('stopped');
    await everyAgentAborted(runId);
    // The page shows the cut: no turn, no panel still running (no cursor blinking for ever).
    await page.waitForFunction(() => document.querySelectorAll('[data-status="running"]').length === 0);
    expect(await page.$$eval('.turn[data-status="cancelled"]', (turns) => turns.length)).toBeGreaterThan(0);
  });

  it('closing the tab mid-run cancels the run on the server the same way', async () => {
    const runId = await start({ speed: '150' });
    await aTurnMidway();
    await page.close();
    await everyAgentAborted(runId);
  });

  it('a reload mid-run resumes after the last event the page saw: nothing missing, nothing twice', async () => {
    const runId = await start({ speed: '40' });
    await page.waitForFunction(() => Number(document.querySelector('#events')?.getAttribute('data-count')) >= 15);
    await page.reload();
    await status('completed');
    expect(Number(await page.getAttribute('#resumed', 'data-after'))).toBeGreaterThanOrEqual(15);
    const events = await serverEvents(runId);
    expect(Number(await page.getAttribute('#events', 'data-count'))).toBe(events.length);
    const view = events.reduce(reduceRunView, emptyRunView);
    const onPage = await page.$$eval('.turn', (turns) => turns.map((turn) => [turn.getAttribute('data-call-id') ?? '', turn.textContent ?? '']));
    const byCallId = (a: string[], b: string[]) => (a[0] as string).localeCompare(b[0] as string);
    expect(onPage.sort(byCallId)).toEqual(view.nodes.filter((node) => node.kind === 'call').map((node) => [node.callId, node.text]).sort(byCallId));
    expect(onPage).toHaveLength(12);
  });

  it('a person who joins the debate answers in the page, and the debaters after them hear it', async () => {
    const runId = await start({ human: true });
    await page.waitForSelector('#ask:not([hidden])');
    expect(await page.textContent('#ask-prompt')).toBe('Your turn: Round 1: give your contribution. Topic: Should we split the monolith this year?');
    await page.fill('#answer', 'Keep the monolith; fix the flaky tests first.');
    await page.click('#ask button[type="submit"]');
    await page.waitForFunction(() => document.querySelector('.panel[data-agent="you"] .turn')?.textContent === 'Keep the monolith; fix the flaky tests first.');
    await until(() => demo.agentCalls(runId).some((call) => call.agentId === 'operator'));
    expect(demo.agentCalls(runId).find((call) => call.agentId === 'operator')?.input).toContain('Keep the monolith; fix the flaky tests first.');
    // The debate cannot end without the person's next turns: Stop ends it, aborting whoever is working.
    await page.click('#stop');
    await status('stopped');
    await everyAgentAborted(runId);
  });
});

describe('the web demo server, without a browser', () => {
  let demo: WebDemo;
  beforeAll(async () => {
    demo = await startWebDemo({ webDir: join(__dirname, '..', '..', 'examples', 'web') });
  });
  afterAll(async () => {
    await demo?.close();
  });

  /** POSTs a body that never ends (the client writes until the server answers) and resolves with the status. */
  const postEndless = (path: string): Promise<number | undefined> =>
    new Promise((resolve, reject) => {
      const request = httpRequest(new URL(path, demo.url), { method: 'POST', headers: { 'content-type': 'application/json' } });
      const chunk = Buffer.alloc(64 * 1_024, 0x20);
      let answered = false;
      const write = (): void => {
        while (!answered) if (!request.write(chunk)) return void request.once('drain', write);
      };
      request.on('response', (response) => {
        answered = true;
        resolve(response.statusCode);
        request.destroy();
      });
      request.on('error', (error) => (answered ? undefined : reject(error)));
      write();
    });

  it('answers a body longer than a route reads with 413 without reading it whole', async () => {
    expect(await postEndless('api/runs')).toBe(413);
    const started = await fetch(new URL('api/runs', demo.url), { method: 'POST', body: JSON.stringify({ scene: 'debate', human: true }) });
    const { runId } = (await started.json()) as { runId: string };
    expect(await postEndless(`api/runs/${runId}/answers`)).toBe(413);
    await fetch(new URL(`api/runs/${runId}/cancel`, demo.url), { method: 'POST' });
  });

  it("takes a person's answer only for a question of the run it names: another run's question is a 404, like an unknown one", async () => {
    const startWithPerson = async (): Promise<{ runId: string; interruptId: string }> => {
      const started = await fetch(new URL('api/runs', demo.url), { method: 'POST', body: JSON.stringify({ scene: 'debate', human: true, wordMs: 1 }) });
      const { runId } = (await started.json()) as { runId: string };
      const asked = await firstValueFrom(fromEventStream(new URL(`api/runs/${runId}/events`, demo.url).href).pipe(first((event) => event.type === 'interrupt')));
      return { runId, interruptId: (asked as RunEventOf<'interrupt'>).interruptId };
    };
    const answer = (runId: string, body: unknown) =>
      fetch(new URL(`api/runs/${runId}/answers`, demo.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const [alice, bob] = await Promise.all([startWithPerson(), startWithPerson()]);
    try {
      const crossRun = await answer(bob.runId, { interruptId: alice.interruptId, answer: 'Bob speaks for Alice' });
      const unknown = await answer(bob.runId, { interruptId: '3b241101-e2bb-4255-8caf-4136c566a962', answer: 'a guess' });
      expect([crossRun.status, unknown.status]).toEqual([404, 404]);
      expect(await crossRun.text()).toBe(await unknown.text());
      const echo = await answer(alice.runId, { interruptId: '<script>steal()</script>'.repeat(20), answer: 'x' });
      expect(echo.status).toBe(400);
      expect(await echo.text()).not.toContain('steal');
      expect((await answer(alice.runId, { interruptId: alice.interruptId, answer: 'Alice speaks' })).status).toBe(204);
      await until(() => demo.agentCalls(alice.runId).some((call) => call.agentId === 'operator' && call.input.includes('Alice speaks')));
      expect(demo.agentCalls(bob.runId).some((call) => call.agentId === 'operator')).toBe(false);
    } finally {
      await Promise.all([alice, bob].map(({ runId }) => fetch(new URL(`api/runs/${runId}/cancel`, demo.url), { method: 'POST' })));
    }
  });

  it('a body a route leaves unread, or stops reading, does not hold up the next request on the same connection', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const post = (path: string, body: string): Promise<number | undefined> =>
      new Promise((resolve, reject) => {
        const request = httpRequest(new URL(path, demo.url), { method: 'POST', agent, headers: { 'content-type': 'application/json' } });
        request.on('response', (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode));
        });
        request.on('error', reject);
        request.end(body);
      });
    try {
      expect(await post('api/runs/unknown/cancel', ' '.repeat(1 << 20))).toBe(404);
      expect(await post('api/runs', ' '.repeat(1 << 20))).toBe(413);
      expect(await post('api/runs', JSON.stringify({ scene: 'nonsense' }))).toBe(400);
    } finally {
      agent.destroy();
    }
  });
});
