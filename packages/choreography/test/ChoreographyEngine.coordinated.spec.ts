import { ChoreographyEngine, type ChoreographyEvent, ChoreographySpec, type CoordinatedEntry, type EventBus, type StepResult } from '@rxagents/choreography';
import { defineAgent } from '@rxagents/core';
import { scriptedAgent } from '@rxagents/testing';
import { map, NEVER, Observable, type Subscriber, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { silent } from './fixtures';

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

type Unnumbered = CoordinatedEntry extends infer E ? (E extends CoordinatedEntry ? Omit<E, 'id'> : never) : never;

/**
 * One run shared by several engines in one process, as a shared log would carry it across processes:
 * every bus reads the whole log in order; a claim is held by the first bus that asks until it gives it up
 * or `steal` hands it to another.
 */
function sharedRun() {
  const log: CoordinatedEntry[] = [];
  const readers = new Set<{ cursor: number; subscriber: Subscriber<CoordinatedEntry> }>();
  const claims = new Map<string, { holder: Subscriber<boolean>; waiting: Subscriber<boolean>[]; done: boolean }>();
  let delivering = false;
  let started = false;
  const deliver = () => {
    if (delivering) return;
    delivering = true;
    try {
      for (let progressed = true; progressed; ) {
        progressed = false;
        for (const reader of [...readers]) {
          while (reader.cursor < log.length && !reader.subscriber.closed) {
            reader.subscriber.next(log[reader.cursor++] as CoordinatedEntry);
            progressed = true;
          }
        }
      }
    } finally {
      delivering = false;
    }
  };
  const append = (entry: Unnumbered) => {
    log.push({ ...entry, id: `${log.length}` } as CoordinatedEntry);
    deliver();
  };
  const bus = (): EventBus => {
    let closed = false;
    const own = new Set<Subscriber<CoordinatedEntry>>();
    const entries$ = new Observable<CoordinatedEntry>((subscriber) => {
      const reader = { cursor: 0, subscriber };
      readers.add(reader);
      own.add(subscriber);
      deliver();
      return () => {
        readers.delete(reader);
        own.delete(subscriber);
      };
    });
    return {
      events$: NEVER,
      publish: (event) => (closed ? undefined : append({ kind: 'event', event })),
      close: () => {
        closed = true;
        for (const subscriber of [...own]) subscriber.complete();
      },
      coordinator: {
        entries$,
        start: (events) => {
          if (started) return;
          started = true;
          for (const event of events) append({ kind: 'event', event });
        },
        claim: (eventId, interactionId) =>
          new Observable<boolean>((subscriber) => {
            const key = `${eventId}/${interactionId}`;
            const claim = claims.get(key);
            if (claim === undefined) {
              claims.set(key, { holder: subscriber, waiting: [], done: false });
              subscriber.next(true);
            } else claim.waiting.push(subscriber);
            return () => {
              const current = claims.get(key);
              if (current === undefined) return;
              current.waiting = current.waiting.filter((waiter) => waiter !== subscriber);
              // A claim whose step is recorded is never handed on (an engine that has not read the step yet would run it again).
              if (current.holder !== subscriber || current.done) return;
              const next = current.waiting.shift();
              if (next === undefined) claims.delete(key);
              else {
                current.holder = next;
                next.next(true);
              }
            };
          }),
        recordStep: (eventId, step, emitted) => {
          const claim = claims.get(`${eventId}/${step.interactionId}`);
          if (claim !== undefined) claim.done = true;
          append(emitted === null ? { kind: 'step', step } : { kind: 'step', step, emitted });
        },
        timeOut: () => append({ kind: 'timed-out' }),
      },
    };
  };
  /** Hands the claim of `interactionId` to the next engine waiting for it, as when its holder's lease ran out. */
  const steal = (interactionId: string) => {
    for (const [key, claim] of claims) {
      if (!key.endsWith(`/${interactionId}`)) continue;
      const next = claim.waiting.shift();
      if (next === undefined) continue;
      claim.holder.next(false);
      claim.waiting.push(claim.holder);
      claim.holder = next;
      next.next(true);
    }
  };
  return { bus, steal, append, log };
}

const fanOut = () =>
  ChoreographySpec.builder('fan-out')
    .initialEvent('start')
    .interaction('a', 'user', 'worker', 'start', 'a-done', 'a')
    .interaction('b', 'user', 'worker', 'start', 'b-done', 'b')
    .interaction({ id: 'join', source: 'worker', target: 'editor', trigger: ['a-done', 'b-done'], emits: null, task: 'join' })
    .build();

const brief = (steps: readonly StepResult[]) => steps.map((step) => `${step.interactionId}:${step.success ? step.output : step.error.message}`);

describe('ChoreographyEngine on a bus with a coordinator', () => {
  it('runs each interaction once across engines hosting the same agent; every engine gets every step and the same result', () => {
    newScheduler().run(({ expectObservable }) => {
      const run = sharedRun();
      const calls: string[] = [];
      const worker = (name: string) =>
        defineAgent('worker', (input: string) => {
          const task = input.split('\n')[0] as string;
          calls.push(`${name}:${task}`);
          return timer(10).pipe(map(() => `${task} by ${name}`));
        });
      const one = new ChoreographyEngine({ spec: fanOut(), agents: { worker: worker('one') }, remoteAgents: ['editor'], bus: run.bus(), logger: silent });
      const two = new ChoreographyEngine({ spec: fanOut(), agents: { worker: worker('two'), editor: scriptedAgent('editor', { reply: 'joined', delay: 5 }) }, bus: run.bus(), logger: silent });
      const result = {
        success: true,
        timedOut: false,
        pending: [],
        stepResults: [expect.objectContaining({ interactionId: 'a', output: 'a by one' }), expect.objectContaining({ interactionId: 'b', output: 'b by one' }), expect.objectContaining({ interactionId: 'join', output: 'joined' })],
      };
      expectObservable(one.execute$({ input: 'x' })).toBe('15ms (r|)', { r: expect.objectContaining(result) });
      expectObservable(two.execute$()).toBe('15ms (r|)', { r: expect.objectContaining(result) });
      expectObservable(new Observable((subscriber) => subscriber.next(calls.length)), '16ms ^').toBe('16ms x', { x: 2 });
    });
  });

  it('records the first step of an interaction and ignores a later one', async () => {
    const run = sharedRun();
    const engine = new ChoreographyEngine({ spec: fanOut(), agents: { worker: defineAgent('worker', () => NEVER) }, remoteAgents: ['editor'], bus: run.bus(), logger: silent });
    const done = engine.execute();
    const step = (interactionId: string, output: string): StepResult => ({ interactionId, agentId: 'worker', input: interactionId, success: true, output, startedAt: 0, durationMs: 1 });
    const emitted = (name: string, output: string): ChoreographyEvent => ({ name, output, interactionId: name[0] as string, agentId: 'worker' });
    run.append({ kind: 'step', step: step('a', 'first'), emitted: emitted('a-done', 'first') });
    run.append({ kind: 'step', step: step('a', 'second'), emitted: emitted('a-done', 'second') });
    run.append({ kind: 'step', step: step('b', 'b'), emitted: emitted('b-done', 'b') });
    run.append({ kind: 'step', step: { ...step('join', 'joined'), agentId: 'editor' } });
    expect(brief((await done).stepResults)).toEqual(['a:first', 'b:b', 'join:joined']);
  });

  it('aborts the call of an interaction whose claim is lost; the step of the engine that took it over is the one recorded', () => {
    newScheduler().run(({ expectObservable, cold, flush }) => {
      const run = sharedRun();
      const aborted: string[] = [];
      const worker = (name: string) =>
        defineAgent('worker', (input: string, { signal }) => {
          const task = input.split('\n')[0] as string;
          signal.addEventListener('abort', () => aborted.push(`${name}:${task}`));
          return cold('20ms (x|)', { x: `${task} by ${name}` });
        });
      const spec = ChoreographySpec.builder('one').initialEvent('start').interaction('a', 'user', 'worker', 'start', null, 'a').build();
      const one = new ChoreographyEngine({ spec, agents: { worker: worker('one') }, bus: run.bus(), logger: silent });
      const two = new ChoreographyEngine({ spec, agents: { worker: worker('two') }, bus: run.bus(), logger: silent });
      const result = expect.objectContaining({ success: true, stepResults: [expect.objectContaining({ interactionId: 'a', output: 'a by two' })] });
      expectObservable(one.execute$()).toBe('25ms (r|)', { r: result });
      expectObservable(two.execute$()).toBe('25ms (r|)', { r: result });
      cold('5ms x').subscribe(() => run.steal('a'));
      flush();
      expect(aborted).toEqual(['one:a']);
    });
  });

  it('ends every engine with the same deadlock when an awaited event never comes', async () => {
    const run = sharedRun();
    const failing = defineAgent('worker', async (input: string) => {
      if (input.startsWith('b')) throw new Error('b failed');
      return 'ok';
    });
    const engines = [
      new ChoreographyEngine({ spec: fanOut(), agents: { worker: failing }, remoteAgents: ['editor'], bus: run.bus(), logger: silent }),
      new ChoreographyEngine({ spec: fanOut(), agents: { editor: defineAgent('editor', async () => 'joined') }, remoteAgents: ['worker'], bus: run.bus(), logger: silent }),
    ];
    const results = await Promise.all(engines.map((engine) => engine.execute()));
    for (const result of results) {
      expect(result).toMatchObject({ success: false, timedOut: false, pending: ['join'] });
      expect(result.stepResults.map((step) => step.interactionId)).toEqual(['a', 'b']);
    }
  });
});
