import { forkJoin, map, type Observable } from 'rxjs';
import { answerInterrupt, askForInput, defineAgent, invoke$, MemoryRunStore, observeRun, pendingInterrupts, pendingInterrupts$, type RunEvent, type RunEventOf, type RunStore } from '../src';
import { journalOf, rootEnd } from './support/durable';

/** A store whose appends carrying an `interrupt` wait until `open` is called (then go through, or fail with `failure`). */
function questionGate<S extends RunStore>(store: S): { store: S; waiting: () => boolean; journaled: () => boolean; open: (failure?: Error) => void } {
  let release: ((failure: Error | undefined) => void) | undefined;
  let journaled = false;
  const gated = new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property !== 'append' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: Parameters<RunStore['append']>): Promise<void> => {
        if (!args[1].some((event) => event.type === 'interrupt')) return (value as RunStore['append']).apply(target, args);
        const failure = await new Promise<Error | undefined>((resolve) => (release = resolve));
        release = undefined;
        if (failure !== undefined) throw failure;
        await (value as RunStore['append']).apply(target, args);
        journaled = true;
      };
    },
  });
  return { store: gated, waiting: () => release !== undefined, journaled: () => journaled, open: (failure) => release?.(failure) };
}

/** `store`, whose lease renewals fail (after `renewing` is called): the run stops as one whose lease was lost. */
function failingRenewals<S extends RunStore>(store: S, renewing: () => void): S {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property !== 'renewLease') return typeof value === 'function' ? value.bind(target) : value;
      return async (): Promise<never> => {
        renewing();
        throw new Error('the store lost the lease');
      };
    },
  });
}

/** Subscribes and collects; `done` settles when the run completes. */
function watch(events$: Observable<RunEvent>): { events: RunEvent[]; done: Promise<void> } {
  const events: RunEvent[] = [];
  const done = new Promise<void>((resolve, reject) => events$.subscribe({ next: (event) => events.push(event), error: reject, complete: resolve }));
  return { events, done };
}

const settle = async (turns = 5): Promise<void> => {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe("a durable run's question before its journal holds it", () => {
  it('is neither said to the reader nor listed, and what follows it waits with it, in order', async () => {
    const gate = questionGate(new MemoryRunStore());
    const echo = defineAgent('echo', async (input) => input);
    const listed: string[][] = [];
    const watching = pendingInterrupts$('q-1').subscribe((open) => listed.push(open.map((event) => event.interruptId)));
    const shownJournaled: boolean[] = [];
    const run = watch(
      observeRun('ask', 'go', (run) => forkJoin([askForInput(run, 'Name?'), invoke$(echo, 'beside', { run })]).pipe(map((both) => both.join(' '))), { store: gate.store, runId: 'q-1' }).pipe(
        map((event) => {
          if (event.type === 'interrupt') shownJournaled.push(gate.journaled());
          return event;
        }),
      ),
    );
    await settle();
    expect(gate.waiting()).toBe(true);
    expect(run.events.map((event) => event.type)).toEqual(['run-start']);
    expect(pendingInterrupts('q-1')).toEqual([]);

    gate.open();
    await settle();
    const asked = run.events.find((event): event is RunEventOf<'interrupt'> => event.type === 'interrupt');
    expect(shownJournaled).toEqual([true]);
    expect(run.events.map((event) => event.type)).toEqual(['run-start', 'interrupt', 'call-start', 'text-delta', 'call-end']);
    expect(pendingInterrupts('q-1')).toEqual([asked]);
    answerInterrupt('q-1', asked!.interruptId, 'Ada');
    await run.done;
    watching.unsubscribe();
    expect(rootEnd(run.events)).toMatchObject({ success: true, output: 'Ada beside' });
    expect(listed).toEqual([[], [asked!.interruptId], []]);
    expect(await journalOf(gate.store, 'q-1')).toEqual(run.events);
  });

  it('is never shown when its append fails: the run ends with the store failure and no id got out', async () => {
    const gate = questionGate(new MemoryRunStore());
    const listed: number[] = [];
    const watching = pendingInterrupts$('q-2').subscribe((open) => listed.push(open.length));
    const run = watch(observeRun('ask', 'go', (run) => askForInput(run, 'Name?'), { store: gate.store, runId: 'q-2' }));
    await settle();
    gate.open(new Error('disk full'));
    await run.done;
    watching.unsubscribe();
    expect(run.events.map((event) => event.type)).toEqual(['run-start', 'run-end']);
    expect(rootEnd(run.events)).toMatchObject({ success: false, error: { code: 'RUN_STORE_FAILED' } });
    expect(listed).toEqual([0]);
    expect(pendingInterrupts('q-2')).toEqual([]);
  });

  it('takes an answer given by the code that saw it said, journaled after the question', async () => {
    const gate = questionGate(new MemoryRunStore());
    // The body hands the question a context whose emit answers it the moment it is said.
    const run = watch(
      observeRun(
        'ask',
        'go',
        (run) =>
          askForInput(
            {
              ...run,
              emit: (event) => {
                run.emit(event);
                if (event.type === 'interrupt') answerInterrupt(event.runId, event.interruptId, 'Ada');
              },
            },
            'Name?',
          ),
        { store: gate.store, runId: 'q-3' },
      ),
    );
    await settle();
    expect(run.events.map((event) => event.type)).toEqual(['run-start']);
    gate.open();
    await run.done;
    expect(run.events.map((event) => event.type)).toEqual(['run-start', 'interrupt', 'interrupt-end', 'run-end']);
    expect(rootEnd(run.events)).toMatchObject({ success: true, output: 'Ada' });
    expect(await journalOf(gate.store, 'q-3')).toEqual(run.events);
  });

  it('keeps its end after it when the run stops while its append is under way', async () => {
    let renewed = false;
    const gate = questionGate(failingRenewals(new MemoryRunStore(), () => (renewed = true)));
    const run = watch(observeRun('ask', 'go', (run) => askForInput(run, 'Name?'), { store: gate.store, runId: 'q-4', leaseTtlMs: 30 }));
    while (!renewed) await settle(1);
    await settle();
    // Stopped: the question was cancelled, and its end waits behind it.
    expect(run.events.map((event) => event.type)).toEqual(['run-start']);
    gate.open();
    await run.done;
    expect(run.events.map((event) => event.type)).toEqual(['run-start', 'interrupt', 'interrupt-end', 'run-end']);
    expect(rootEnd(run.events)).toMatchObject({ success: false, error: { code: 'RUN_STORE_FAILED' } });
    expect(pendingInterrupts('q-4')).toEqual([]);
  });
});
