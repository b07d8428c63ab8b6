import type { Page } from 'playwright-core';
import { asyncScheduler, tap } from 'rxjs';
import { answerInterrupt, MemoryRunStore, type RunEvent } from '@rxagents/core';
import { inspectorHandler } from '@rxagents/inspector';
import { serveInspector, type RunningInspector } from './inspect';
import { approvalEvents, choreographyEvents, debateEvents, failedEvents, HeldScheduler, journal, resumedEvents } from './inspectorRuns';

// The four states of the run inspector that its browser tests check and its screenshots show, each
// reached with bounded polling waits (never a fixed sleep): a debate while it runs, a finished
// choreography with the time cursor at its middle interaction, a failed run, and a handoff chain
// waiting for a person's approval.

/** An inspector over a memory store, on loopback, with the page's errors in full. */
export interface InspectorFixture extends RunningInspector {
  readonly store: MemoryRunStore;
}

export async function startInspectorFixture(): Promise<InspectorFixture> {
  const store = new MemoryRunStore();
  const handler = await inspectorHandler({ store, pollMs: 50, exposeError: (error) => error });
  return { ...(await serveInspector(handler, 0)), store };
}

/** Resolves once `check()` holds, running `step()` between checks; rejects after `attempts`. */
export async function pollUntil(check: () => Promise<boolean>, step: () => void = () => undefined, attempts = 600): Promise<void> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (await check()) return;
    step();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the inspector never reached the awaited state');
}

const count = (page: Page, selector: string): Promise<number> => page.locator(selector).count();

/**
 * A debate whose every word waits for a release: the page is opened on it, and words are let through
 * until both debaters have a lane and at least three calls show, the run still running.
 */
export async function showLiveDebate(page: Page, fixture: InspectorFixture): Promise<{ readonly held: HeldScheduler; readonly done: Promise<void> }> {
  const held = new HeldScheduler();
  const { runId, done } = journal(fixture.store, debateEvents({ scheduler: held, wordMs: 1 }));
  await page.goto(`${fixture.url}?run=${await runId}`);
  await pollUntil(
    async () => (await count(page, '#timeline .lane')) >= 2 && (await count(page, '#timeline rect.bar')) >= 3 && (await count(page, '#timeline rect.bar[data-status="running"]')) >= 1,
    () => held.release(1),
  );
  return { held, done };
}

/**
 * A choreography run to its end, then shown with the time cursor halfway through its middle interaction
 * (the writer's call), the writer selected: its text as far as it had written it then.
 */
export async function showScrubbedChoreography(page: Page, fixture: InspectorFixture): Promise<{ readonly cursor: number; readonly events: readonly RunEvent[] }> {
  const { runId, done } = journal(fixture.store, choreographyEvents({ scheduler: asyncScheduler, wordMs: 20 }));
  await done;
  const id = await runId;
  const events: RunEvent[] = [];
  for await (const { event } of fixture.store.read(id, 0)) events.push(event);
  const writing = events.find((event) => event.type === 'call-start' && event.agentId === 'writer');
  const written = events.find((event) => event.type === 'call-end' && event.agentId === 'writer');
  if (writing === undefined || written === undefined) throw new Error('the choreography never called its writer');
  const cursor = Math.floor((writing.at + written.at) / 2);
  await page.goto(`${fixture.url}?run=${id}`);
  await page.waitForSelector('main[data-run="completed"] #tree li[data-kind="call"]');
  await page.locator('#cursor input[type="range"]').evaluate((input: HTMLInputElement, value: number) => {
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set?.call(input, String(value));
    input.dispatchEvent(new Event('input', { bubbles: true }));
  }, cursor);
  await page.waitForSelector('main[data-run="running"]');
  await page.click('#tree li[data-kind="call"] > .label >> text=writer');
  await page.waitForSelector('#details[data-status="running"]');
  return { cursor, events };
}

/** A run that fails, shown once it ended, its root (and so its error) selected. */
export async function showFailedRun(page: Page, fixture: InspectorFixture): Promise<string> {
  const { runId, done } = journal(fixture.store, failedEvents({ scheduler: asyncScheduler, wordMs: 5 }));
  await done;
  await page.goto(`${fixture.url}?run=${await runId}`);
  await page.waitForSelector('main[data-run="failed"] #details .error');
  return runId;
}

/**
 * A durable refund run resumed after its process stopped mid-call, shown finished, the interrupted
 * attempt of its biller selected.
 */
export async function showResumedRun(page: Page, fixture: InspectorFixture): Promise<string> {
  const { runId, done } = journal(fixture.store, resumedEvents({ scheduler: asyncScheduler, wordMs: 5 }));
  await done;
  await page.goto(`${fixture.url}?run=${await runId}`);
  await page.waitForSelector('main[data-run="completed"] #tree li[data-status="interrupted"]');
  await page.click('#tree li[data-status="interrupted"] > .label');
  return runId;
}

/**
 * A refund handed from triage to billing, shown while billing waits for a person's approval: the
 * handoff's arrow from triage's lane to billing's, the question's marker on billing's lane, and the
 * question selected. `approve()` answers it; `done` resolves once the run ended. Should the page never
 * show that, the question is refused (the run ends) and the wait's error thrown.
 */
export async function showAwaitingApproval(page: Page, fixture: InspectorFixture): Promise<{ readonly runId: string; readonly approve: () => void; readonly done: Promise<void> }> {
  let asked: { readonly runId: string; readonly interruptId: string } | undefined;
  const events$ = approvalEvents({ scheduler: asyncScheduler, wordMs: 5 }).pipe(tap((event) => (event.type === 'interrupt' ? (asked = event) : undefined)));
  const { runId, done } = journal(fixture.store, events$);
  const answer = (approved: boolean): void => {
    if (asked === undefined) throw new Error('the run never asked for approval');
    answerInterrupt(asked.runId, asked.interruptId, { approved });
  };
  try {
    await page.goto(`${fixture.url}?run=${await runId}`);
    await page.waitForSelector('main[data-run="running"] #timeline .marker.interrupt');
    // A vertical line's box is zero pixels wide: attached, not "visible" to Playwright.
    await page.waitForSelector('#timeline line.handoff', { state: 'attached' });
    await page.click('#tree li[data-kind="interrupt"] > .label');
    await page.waitForSelector('#details[data-status="running"] >> text=Refund 120 EUR');
  } catch (error) {
    if (asked !== undefined) answer(false);
    throw error;
  }
  return { runId: await runId, approve: () => answer(true), done };
}
