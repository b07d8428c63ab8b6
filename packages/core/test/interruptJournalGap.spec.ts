import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { filter, firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { answerInterrupt, pendingInterrupts$, RunLeasedError, type RunEvent, type RunEventOf } from '../src';
import { FileRunStore } from '@rxagents/core/file-store';
import { type ChildLine, startChainChild, waitUntil } from './support/chainChild';
import { APPROVED_OUTPUT, approvalRun$ } from './support/approvalRun';
import { rootEnd } from './support/durable';
import { freshDirectories } from './support/freshDirectories';

jest.setTimeout(90_000);

const SCRIPT = 'packages/core/test/support/approvalGapProcess.ts';
const LEASE_TTL_MS = 500;
const RUN_ID = 'bill-1';

/** What the approval child prints (see approvalGapProcess.ts). */
type GapLine = ChildLine & { readonly appending?: string; readonly interruptId?: string; readonly listed?: readonly string[] };

const freshDirectory = freshDirectories('rxagents-interrupt-gap-');

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
function leaseFree(store: FileRunStore, what: string): Promise<void> {
  return waitUntil(what, () =>
    store.acquireLease(RUN_ID, LEASE_TTL_MS).then(
      (lease) => store.releaseLease(lease).then(() => true),
      (error: unknown) => {
        if (error instanceof RunLeasedError) return false;
        throw error;
      },
    ),
  );
}

/** Resumes the killed run here once its lease lapsed; resolves with the question it asks again, and the rest of the run (once it gave its lease back). */
async function resume(directory: string): Promise<{ readonly asked: RunEventOf<'interrupt'>; readonly events: Promise<RunEvent[]> }> {
  const store = new FileRunStore({ directory, onTornRecord: () => undefined });
  await leaseFree(store, 'the killed process lease lapsed');
  const events = lastValueFrom(approvalRun$(store, RUN_ID, LEASE_TTL_MS).pipe(toArray())).then(async (all) => {
    await leaseFree(store, 'the resumed run gave its lease back');
    return all;
  });
  const [asked] = await firstValueFrom(pendingInterrupts$(RUN_ID).pipe(filter((open) => open.length > 0)));
  return { asked: asked as RunEventOf<'interrupt'>, events };
}

describe('a question killed with its process', () => {
  it('is shown to nobody before its journal holds it: a kill inside that gap leaves no id a resumed run does not know', async () => {
    const directory = await freshDirectory();
    // SIGKILLed from the line handler the moment the question's append starts (it waits for a gate never opened).
    const child = startChainChild(SCRIPT, { DIRECTORY: directory, RUN_ID, LEASE_TTL_MS: String(LEASE_TTL_MS), GATE: join(directory, 'never') }, (line) => (line as GapLine).appending === 'interrupt');
    expect(await child.exited).toBe('SIGKILL');
    expect(child.lines).toContainEqual({ appending: 'interrupt' });
    const shown = idsShown(child.lines);

    const { asked, events } = await resume(directory);
    // Whatever id a reader of the killed process had, an answer to it is taken by the resumed run.
    for (const id of shown) answerInterrupt(RUN_ID, id, { approved: true });
    expect(shown).toEqual(new Set());
    answerInterrupt(RUN_ID, asked.interruptId, { approved: true });
    expect(rootEnd(await events)).toMatchObject({ success: true, output: APPROVED_OUTPUT });
  });

  it('once journaled, is asked again under the id its reader saw, and an answer to that id finishes the run', async () => {
    const directory = await freshDirectory();
    const gate = join(directory, 'gate');
    const child = startChainChild(SCRIPT, { DIRECTORY: directory, RUN_ID, LEASE_TTL_MS: String(LEASE_TTL_MS), GATE: gate }, (line) => {
      if ((line as GapLine).appending === 'interrupt') writeFileSync(gate, '');
      return (line as GapLine).interruptId !== undefined;
    });
    expect(await child.exited).toBe('SIGKILL');
    const [seen, ...others] = idsShown(child.lines);
    expect(others).toEqual([]);
    // The reader had the question only once the journal held it: the append came first.
    const lines = child.lines as readonly GapLine[];
    expect(lines.findIndex((line) => line.appending === 'interrupt')).toBeLessThan(lines.findIndex((line) => line.interruptId !== undefined || (line.listed?.length ?? 0) > 0));

    const { asked, events } = await resume(directory);
    expect(asked.interruptId).toBe(seen);
    answerInterrupt(RUN_ID, seen as string, { approved: true });
    expect(rootEnd(await events)).toMatchObject({ success: true, output: APPROVED_OUTPUT });
  });
});
