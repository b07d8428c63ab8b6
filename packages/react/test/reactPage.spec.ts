import type { Browser, Page } from 'playwright-core';
import { describeInChromium, launchChromium, until } from '../../../test/e2e/chromium';
import { startPageServer, type PageServer } from './browser/pageServer';

// The hooks in a real React 19 page in headless Chromium, against a run registry on loopback in this
// process (so the test sees what the server sees: which event requests closed, which agent calls were
// aborted). Every wait is for a state of the page or of the server, never for a length of time.

jest.setTimeout(60_000);

describeInChromium('@rxagents/react in a React 19 page', () => {
  let server: PageServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startPageServer(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  beforeEach(async () => {
    page = await browser.newPage();
  });
  afterEach(async () => {
    if (!page.isClosed()) await page.close();
  });

  const open = (query: Record<string, string>) => page.goto(`${server.url}?${new URLSearchParams(query)}`);
  const textIs = (text: string) => page.waitForFunction((wanted) => document.querySelector('#text')?.textContent === wanted, text);

  it('streams the text in while the run runs, and shows the run completed', async () => {
    const story = server.story();
    await open({ mode: 'text', events: `/runs/${story.runId}/events` });
    story.say('Once ');
    await textIs('Once ');
    expect(await page.getAttribute('#text', 'data-run')).toBe('running');
    story.say('upon a time');
    await textIs('Once upon a time');
    expect(await page.getAttribute('#text', 'data-run')).toBe('running');
    story.end();
    await page.waitForSelector('#text[data-run="completed"][data-reading="ended"]');
    expect(await page.textContent('#text')).toBe('Once upon a time');
  });

  it("unmounting closes the run's event request; the registry's run goes on and completes", async () => {
    const story = server.story();
    const path = `/runs/${story.runId}/events`;
    await open({ mode: 'text', events: path });
    story.say('Once ');
    await textIs('Once ');
    await page.click('#unmount');
    await until(() => server.requests(path).closed === 1);
    expect(server.requests(path)).toEqual({ opened: 1, closed: 1 });
    // A viewer leaving is not a cancellation: the run runs on for whoever watches it next.
    story.say('upon a time');
    story.end();
    const late = await (await fetch(new URL(path, server.url))).text();
    expect(late).toContain('"success":true');
    expect(story.aborted()).toBe(false);
  });

  it('unmounting cancels a run made per request: its request closes and its agent call is aborted', async () => {
    await open({ mode: 'text', events: '/story' });
    await until(() => server.lastRequestStory() !== undefined);
    const story = server.lastRequestStory()!;
    story.say('Once ');
    await textIs('Once ');
    await page.click('#unmount');
    await until(() => server.requests('/story').closed === 1);
    await until(() => story.aborted());
    expect(story.aborted()).toBe(true);
  });

  it('reads a run once under StrictMode, which mounts every component twice', async () => {
    const story = server.story();
    const path = `/runs/${story.runId}/events`;
    await open({ mode: 'text', events: path, strict: '1' });
    story.say('Once ');
    await textIs('Once ');
    expect(server.requests(path)).toEqual({ opened: 1, closed: 0 });
    await page.click('#unmount');
    await until(() => server.requests(path).closed === 1);
  });

  it('shows the open questions, a refused answer with its rule, and takes the answers through postAnswer', async () => {
    const runId = server.invoice();
    const path = `/runs/${runId}/events`;
    await open({ mode: 'questions', events: path, answers: `/runs/${runId}/answers` });
    const input = await page.waitForSelector('form.question[data-kind="input"]');
    expect(await input.textContent()).toContain('Who gets the invoice?');

    // Too short for the question's schema: refused (422) with the schema's rule, and still open.
    await page.fill('form.question[data-kind="input"] .value', 'A');
    await page.click('form.question[data-kind="input"] .send');
    await page.waitForFunction(() => (document.querySelector('form.question[data-kind="input"] .refusal')?.textContent ?? '').startsWith('422 INTERRUPT_ANSWER_INVALID'));
    expect(server.registry.pending(runId).map((asked) => asked.kind)).toEqual(['input']);

    await page.fill('form.question[data-kind="input"] .value', 'Ada');
    await page.click('form.question[data-kind="input"] .send');
    const approval = await page.waitForSelector('form.question[data-kind="approval"]');
    expect(await approval.textContent()).toContain('Send the invoice to Ada?');
    expect(await page.textContent('form.question .args')).toBe('send_invoice {"to":"Ada"}');
    expect(await page.$$('form.question[data-kind="input"]')).toHaveLength(0);

    await page.click('form.question[data-kind="approval"] .approve');
    await page.waitForSelector('#run[data-run="completed"]');
    expect(await page.$$('form.question')).toHaveLength(0);
    expect(await page.textContent('#output')).toContain('sent to Ada');
    // Both hooks read one store: one connection.
    expect(server.requests(path).opened).toBe(1);
  });
});
