import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { filter, firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { answerInterrupt, pendingInterrupts$, RunLeasedError, type RunEvent, type RunEventOf, type RunStore } from '../../src';
import type { ChainChild, ChildLine } from './chainChild';
import { waitUntil } from './chainChild';
import { APPROVED_OUTPUT, approvalRun$ } from './approvalRun';
import { rootEnd } from './durable';

/** The lease of the approval run in these scenarios (the killed child's lapses after it). */
export const GAP_LEASE_TTL_MS = 500;

/** What the approval child prints (see approvalGapChild.ts). */
type GapLine = ChildLine & { readonly appending?: string; readonly interruptId?: string; readonly listed?: readonly string[] };

/** One scenario's setup: a store the run journals to (shared with the child), a scratch directory, and how to start the child. */
export interface GapSetup {
  readonly store: RunStore;
  readonly runId: string;
  readonly scratch: string;
  /** Starts the approval child on the same store, its question's append waiting for the file `gate`. */
  readonly start: (gate: string, killWhen: (line: ChildLine) => boolean) => ChainChild;
}

/** Every interrupt id the child showed a reader: in its run's events, or listed by `pendingInterrupts$`. */
function idsShown(lines: readonly ChildLine[]): Set<string> {
  const ids = new Set<string>();
  for (const line of lines as readonly GapLine[]) {
    if (line.interruptId !== undefined) ids.add(line.interruptId);
    for (const id of line.listed ?? []) ids.add(id);
  }
  return ids;
}

/** Waits until nobody holds the run's lease: taking it succeeds (and it is given back at once). */
function leaseFree(store: RunStore, runId: string, what: string): Promise<void> {
  return waitUntil(what, () =>
    store.acquireLease(runId, GAP_LEASE_TTL_MS).then(
      (lease) => store.releaseLease(lease).then(() => true),
      (error: unknown) => {
        if (error instanceof RunLeasedError) return false;
        throw error;
      },
    ),
  );
}

/** Resumes the killed run here once its lease lapsed: the question it asks again, and the rest of the run (once it gave its lease back). */
async function resume({ store, runId }: GapSetup): Promise<{ readonly asked: RunEventOf<'interrupt'>; readonly events: Promise<RunEvent[]> }> {
  await leaseFree(store, runId, 'the killed process lease lapsed');
  const events = lastValueFrom(approvalRun$(store, runId, GAP_LEASE_TTL_MS).pipe(toArray())).then(async (all) => {
    await leaseFree(store, runId, 'the resumed run gave its lease back');
    return all;
  });
  const [asked] = await firstValueFrom(pendingInterrupts$(runId).pipe(filter((open) => open.length > 0)));
  return { asked: asked as RunEventOf<'interrupt'>, events };
}

/**
 * The two kills of a process around its question's journaling, on the store `setup` gives: inside the
 * gap (the append started, the store does not hold it yet) and just after it.
 */
export function itKeepsQuestionIdsAcrossAKill(setup: () => Promise<GapSetup>): void {
  it('shows the question to nobody before its journal holds it: a kill inside that gap leaves no id a resumed run does not know', async () => {
    const gap = await setup();
    // SIGKILLed from the line handler the moment the question's append starts (it waits for a gate never opened).
    const child = gap.start(join(gap.scratch, 'never'), (line) => (line as GapLine).appending === 'interrupt');
    expect(await child.exited).toBe('SIGKILL');
    expect(child.lines).toContainEqual({ appending: 'interrupt' });
    const shown = idsShown(child.lines);

    const { asked, events } = await resume(gap);
    // Whatever id a reader of the killed process had, an answer to it is taken by the resumed run.
    for (const id of shown) answerInterrupt(gap.runId, id, { approved: true });
    expect(shown).toEqual(new Set());
    answerInterrupt(gap.runId, asked.interruptId, { approved: true });
    expect(rootEnd(await events)).toMatchObject({ success: true, output: APPROVED_OUTPUT });
  });

  it('asks a journaled question again under the id its reader saw, and an answer to that id finishes the run', async () => {
    const gap = await setup();
    const gate = join(gap.scratch, 'gate');
    const child = gap.start(gate, (line) => {
      if ((line as GapLine).appending === 'interrupt') writeFileSync(gate, '');
      return (line as GapLine).interruptId !== undefined;
    });
    expect(await child.exited).toBe('SIGKILL');
    const [seen, ...others] = idsShown(child.lines);
    expect(others).toEqual([]);
    // The reader had the question only once its append was under way (and done: it shows after it).
    const lines = child.lines as readonly GapLine[];
    expect(lines.findIndex((line) => line.appending === 'interrupt')).toBeLessThan(lines.findIndex((line) => line.interruptId !== undefined || (line.listed?.length ?? 0) > 0));

    const { asked, events } = await resume(gap);
    expect(asked.interruptId).toBe(seen);
    answerInterrupt(gap.runId, seen as string, { approved: true });
    expect(rootEnd(await events)).toMatchObject({ success: true, output: APPROVED_OUTPUT });
  });
}
