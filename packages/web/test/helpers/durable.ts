import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { from, Subject, switchMap, type Observable, type VirtualTimeScheduler } from 'rxjs';
import { defineAgent, invoke$, type RunContext } from '@rxagents/core';

/** Reads a body by hand: `next()` is one `read()`, parsed into SSE messages. */
export function readerOf(body: ReadableStream<Uint8Array> | null): {
  next: () => Promise<EventSourceMessage[] | 'done'>;
  rest: () => Promise<EventSourceMessage[]>;
  until: (found: (message: EventSourceMessage) => boolean) => Promise<EventSourceMessage[]>;
  cancel: () => Promise<void>;
} {
  const reader = (body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let messages: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => messages.push(message) });
  const next = async (): Promise<EventSourceMessage[] | 'done'> => {
    const { done, value } = await reader.read();
    if (done) return 'done';
    parser.feed(decoder.decode(value, { stream: true }));
    const read = messages;
    messages = [];
    return read;
  };
  const rest = async (): Promise<EventSourceMessage[]> => {
    const all: EventSourceMessage[] = [];
    for (let read = await next(); read !== 'done'; read = await next()) all.push(...read);
    return all;
  };
  const until = async (found: (message: EventSourceMessage) => boolean): Promise<EventSourceMessage[]> => {
    const all: EventSourceMessage[] = [];
    while (!all.some(found)) {
      const read = await next();
      if (read === 'done') throw new Error('the stream ended first');
      all.push(...read);
    }
    return all;
  };
  return { next, rest, until, cancel: () => reader.cancel() };
}

/** Runs the virtual clock up to `frame` ms (its `now()` is `frame` then). */
export function advance(scheduler: VirtualTimeScheduler, frame: number): void {
  scheduler.schedule(() => undefined, frame - scheduler.now());
  scheduler.maxFrames = frame;
  scheduler.flush();
}

/** Lets promise callbacks and I/O callbacks run. */
export const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Waits (a bounded number of turns of the event loop) until `done()` holds. */
export async function waitUntil(done: () => boolean, turns = 500): Promise<void> {
  for (let turn = 0; turn < turns; turn++) {
    if (done()) return;
    await settle();
  }
  throw new Error('waitUntil: the condition never held');
}

/** {@link waitUntil} for a condition read from a store. */
export async function waitFor(done: () => Promise<boolean>, turns = 500): Promise<void> {
  for (let turn = 0; turn < turns; turn++) {
    if (await done()) return;
    await settle();
  }
  throw new Error('waitFor: the condition never held');
}

/**
 * A chain of three agents, `a` then `b` then `c`, each given the previous answer; `b` hangs on its
 * first call (a call in flight when the process stops) until `answerB()`, later calls answer at once. Counts every call.
 */
export function chainOfThree({ hang = true } = {}): {
  runs: ReadonlyMap<string, (input: string) => (run: RunContext) => Observable<unknown>>;
  calls: Map<string, number>;
  /** Lets `b`'s first call answer after all. */
  answerB: () => void;
} {
  const gate = new Subject<string>();
  const calls = new Map<string, number>([
    ['a', 0],
    ['b', 0],
    ['c', 0],
  ]);
  const count = (id: string): number => {
    const n = (calls.get(id) ?? 0) + 1;
    calls.set(id, n);
    return n;
  };
  const a = defineAgent('a', (input) => (count('a'), from([`A(`, input, `)`])));
  const b = defineAgent('b', (input) => (count('b') === 1 && hang ? gate : from([`B(`, input, `)`])));
  const c = defineAgent('c', (input) => (count('c'), from([`C(`, input, `)`])));
  const chain = (input: string) => (run: RunContext) =>
    invoke$(a, input, { run }).pipe(
      switchMap((text) => invoke$(b, text, { run })),
      switchMap((text) => invoke$(c, text, { run })),
    );
  return { runs: new Map([['chain', chain]]), calls, answerB: () => (gate.next('late B'), gate.complete()) };
}

/** The request of a viewer, with its `Last-Event-ID` when it has one. */
export const watch = (lastEventId?: string): Request => new Request('http://x/runs', lastEventId === undefined ? {} : { headers: { 'last-event-id': lastEventId } });
