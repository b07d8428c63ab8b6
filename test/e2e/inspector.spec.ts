import type { Browser, Page } from 'playwright-core';
import { describeInChromium, launchChromium } from './chromium';
import { pollUntil, showAwaitingApproval, showFailedRun, showLiveDebate, showResumedRun, showScrubbedChoreography, startInspectorFixture, type InspectorFixture } from '../../scripts/inspectorScenes';

// The run inspector in headless Chromium, driven as its screenshots are (scripts/inspectorScenes.ts):
// a debate seen live, a finished choreography scrubbed back to its middle, a failed run and its error,
// a resumed run's interrupted attempt, a handoff chain waiting for a person's approval.

jest.setTimeout(90_000);

describeInChromium('the run inspector in Chromium', () => {
  let browser: Browser;
  let fixture: InspectorFixture;
  let page: Page;

  beforeAll(async () => {
    fixture = await startInspectorFixture();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await fixture?.close();
  });
  beforeEach(async () => {
    page = await browser.newPage({ viewport: { width: 1280, height: 820 } });
  });
  afterEach(async () => {
    await page.close();
  });

  it('fills the lanes of a debate while it runs, then shows it completed with its channel metrics', async () => {
    const { held, done } = await showLiveDebate(page, fixture);
    expect(await page.getAttribute('main', 'data-run')).toBe('running');
    const lanes = await page.locator('#timeline .lane').evaluateAll((groups) => groups.map((group) => group.getAttribute('data-agent')));
    expect(lanes).toEqual(['optimist', 'skeptic']);
    const barsWhileRunning = await page.locator('#timeline rect.bar').count();

    // Let the rest of the debate through: more bars show on the same lanes, live, until it completes.
    await pollUntil(async () => (await page.getAttribute('main', 'data-run')) === 'completed', () => held.release(5));
    await done;
    expect(await page.locator('#timeline rect.bar').count()).toBeGreaterThan(barsWhileRunning);
    expect(await page.locator('#timeline rect.bar[data-status="running"]').count()).toBe(0);
    expect(await page.locator('#metrics polyline[data-source="debate"][data-metric="delivered"]').count()).toBe(1);
    expect(await page.locator('#runs li[data-run-id]').count()).toBeGreaterThanOrEqual(1);
  });

  it('shows a finished choreography as it was at its middle: only the calls that had started, the writer mid-sentence', async () => {
    const { cursor, events } = await showScrubbedChoreography(page, fixture);
    const tree = await page.locator('#tree li[data-kind="call"]').evaluateAll((items) => items.map((item) => `${item.querySelector('.label')?.textContent}`));
    expect(tree).toEqual(['agentresearchercompleted', 'agentwriterrunning']);
    const written = events.filter((event) => event.type === 'text-delta' && event.agentId === 'writer');
    const soFar = written.filter((event) => event.at <= cursor).map((event) => (event.type === 'text-delta' ? event.delta : '')).join('');
    expect(await page.locator('#details .text').count()).toBe(soFar === '' ? 0 : 1);
    if (soFar !== '') expect(await page.textContent('#details .text')).toBe(soFar);

    // Back to now: the whole run, the reviewer too.
    await page.click('#live');
    await page.waitForSelector('main[data-run="completed"] #tree li[data-kind="call"] >> text=reviewer');
    expect(await page.locator('#timeline .lane').count()).toBe(3);
  });

  it("shows a failed run with its error, and the failed call's error marker on its lane", async () => {
    await showFailedRun(page, fixture);
    expect(await page.textContent('#details .error')).toContain('The card processor refused the refund');
    expect(await page.locator('#tree li[data-kind="call"][data-status="failed"]').count()).toBe(1);
    expect(await page.locator('#timeline .lane[data-agent="payments"] rect.bar[data-status="failed"]').count()).toBe(1);
    expect(await page.locator('#timeline .marker.error').count()).toBeGreaterThanOrEqual(1);
    expect(await page.getAttribute('#runs li[data-status="failed"]', 'data-run-id')).not.toBeNull();
  });

  it('shows the attempt a stopped process cut off as interrupted, not failed, and folds it with the checkbox', async () => {
    await showResumedRun(page, fixture);
    expect(await page.locator('#tree li[data-status="failed"]').count()).toBe(0);
    expect(await page.locator('#timeline rect.bar[data-status="failed"]').count()).toBe(0);
    expect(await page.locator('#timeline .marker.error').count()).toBe(0);
    expect(await page.getAttribute('#details', 'data-status')).toBe('interrupted');
    expect(await page.textContent('#details .interrupted')).toContain('run/1#2 ran in its place');
    expect(await page.locator('#timeline .lane[data-agent="biller"] rect.bar[data-status="interrupted"]').count()).toBe(1);
    expect(await page.locator('#timeline .marker.interrupted').count()).toBe(1);
    expect(await page.textContent('#tree li[data-call-id="run/1#2"] .attempt')).toBe('attempt 2');

    await page.check('#fold');
    await page.waitForSelector('#tree li[data-status="interrupted"]', { state: 'detached' });
    expect(await page.locator('#timeline rect.bar[data-status="interrupted"]').count()).toBe(0);
    expect(await page.locator('#tree li[data-call-id="run/1#2"]').count()).toBe(1);
  });

  it("shows a handoff as an arrow between two lanes and a question to a person as a marker on the asking agent's lane, until it is answered", async () => {
    const { approve, done } = await showAwaitingApproval(page, fixture);
    try {
      const lanes = await page.locator('#timeline .lane').evaluateAll((groups) => groups.map((group) => group.getAttribute('data-agent')));
      expect(lanes).toEqual(['triage', 'billing']);
      // The arrow leaves triage's lane (its guide line) and ends at the top of billing's bar; the question's
      // dot sits on billing's lane.
      const numbers = (selector: string, attributes: readonly string[]): Promise<number[]> =>
        page.locator(selector).evaluate((element, names) => names.map((name) => Number(element.getAttribute(name))), attributes);
      expect(await page.locator('#timeline line.handoff').count()).toBe(1);
      const [triageLine] = await numbers('#timeline .lane[data-agent="triage"] > line', ['y1']);
      const [billingLine] = await numbers('#timeline .lane[data-agent="billing"] > line', ['y1']);
      const [billingTop] = await numbers('#timeline .lane[data-agent="billing"] rect.bar', ['y']);
      expect(await numbers('#timeline line.handoff', ['y1', 'y2'])).toEqual([triageLine, billingTop]);
      expect(await page.locator('#timeline .marker.interrupt').count()).toBe(1);
      expect(await numbers('#timeline .marker.interrupt circle', ['cy'])).toEqual([billingLine]);
      const asker = await page.locator('#timeline .marker.interrupt').getAttribute('data-call-id');
      expect(await page.getAttribute(`#tree li[data-call-id="${asker}"]`, 'data-kind')).toBe('interrupt');
      expect(await page.textContent('#details')).toContain('Refund 120 EUR to the card that paid order 7?');
      expect(await page.locator('#timeline .lane[data-agent="billing"] rect.bar[data-status="running"]').count()).toBe(1);
    } finally {
      // Answered (even when a check failed, so that the run ends): the question closes with its answer,
      // billing finishes, the run completes.
      approve();
    }
    await done;
    await page.waitForSelector('main[data-run="completed"]');
    expect(await page.textContent('#details')).toContain('{"approved":true}');
    expect(await page.locator('#timeline rect.bar[data-status="running"]').count()).toBe(0);
  });
});
