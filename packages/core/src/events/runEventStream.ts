import type { Observable } from 'rxjs';
import { z } from 'zod';
import { positiveInt } from '../configRules';
import { parseConfig } from '../parseConfig';
import type { RunContext } from './RunContext';
import type { RunEvent, RunEventOf } from './RunEvent';

/**
 * How {@link runEventStream} treats a reader that is slower than the run.
 *
 * @remarks
 * - `pace` (the default): lossless. At most `bufferSize` events wait for the reader; while the buffer is
 *   full the run waits too: no new agent call starts and no chunk is pulled from an agent that returns
 *   an `AsyncIterable` (a model SDK's stream). An agent that pushes an Observable cannot be paused, so
 *   the chunks it pushes meanwhile still queue (bounded by that one reply).
 * - `conflate`: for UIs. The run never waits. While the buffer is full, a text delta is merged into the
 *   call's latest waiting delta instead of queueing (the text is all there, in fewer, larger pieces);
 *   every other event still queues (a few per call). A stalled reader costs the text itself, not an
 *   object per delta.
 *
 * @example
 * ```ts
 * import type { RunDelivery } from '@rxagents/core';
 *
 * const forAUi: RunDelivery = 'conflate';
 * console.log(forAUi); // conflate
 * ```
 */
export type RunDelivery = 'pace' | 'conflate';

/**
 * Options of {@link runEventStream}.
 *
 * @example
 * ```ts
 * import type { RunEventStreamOptions } from '@rxagents/core';
 *
 * const options: RunEventStreamOptions = { bufferSize: 64, delivery: 'conflate' };
 * console.log(options.bufferSize); // 64
 * ```
 */
export interface RunEventStreamOptions {
  /** How many events may wait for the reader. Default 256. */
  readonly bufferSize?: number;
  /** What happens when they are that many. Default `pace`. */
  readonly delivery?: RunDelivery;
}

const RunEventStreamOptionsSchema = z.strictObject({
  bufferSize: positiveInt().default(256),
  delivery: z.enum(['pace', 'conflate'], { error: "must be 'pace' or 'conflate'" }).default('pace'),
});

/**
 * Reads a run's events as a standard `ReadableStream`, at the reader's speed, with a bounded buffer.
 *
 * @remarks
 * `start` receives the pacing function to pass on as the run's `pace` option (every primitive's
 * `events$` and {@link observeRun} take it) and returns the run's events; it is called once, when the
 * stream starts. Cancelling the stream (or breaking out of `for await`) unsubscribes the run, so every
 * agent's `AbortSignal` fires. See {@link RunDelivery} for the two modes. The stream ends when the run's
 * events complete; an error from `start` or the events errors the stream.
 *
 * @param start - Starts the run with the given pacing function and returns its events.
 * @param options - Buffer size and delivery mode.
 * @returns A `ReadableStream` of the run's events (iterable with `for await` on Node).
 * @throws `ConfigError` for a bad option.
 *
 * @example
 * ```ts
 * import { from } from 'rxjs';
 * import { defineAgent, invoke$, observeRun, runEventStream } from '@rxagents/core';
 *
 * const writer = defineAgent('writer', () => from(['Once ', 'upon ', 'a time']));
 * const events = runEventStream((pace) => observeRun('story', 'go', (run) => invoke$(writer, 'go', { run }), { pace }), { bufferSize: 16 });
 * for await (const event of events) if (event.type === 'text-delta') console.log(event.delta);
 * ```
 */
export function runEventStream(start: (pace: RunContext['pace']) => Observable<RunEvent>, options: RunEventStreamOptions = {}): ReadableStream<RunEvent> {
  const { bufferSize, delivery } = parseConfig(RunEventStreamOptionsSchema, options, 'runEventStream options');
  const buffer = new EventBuffer(bufferSize, delivery === 'conflate');
  let stop: (() => void) | undefined;
  return new ReadableStream<RunEvent>(
    {
      start: () => {
        const subscription = start(delivery === 'pace' ? () => buffer.gate() : undefined).subscribe({
          next: (event) => buffer.push(event),
          error: (error: unknown) => buffer.fail(error),
          complete: () => buffer.end(),
        });
        stop = () => subscription.unsubscribe();
      },
      pull: async (controller) => {
        const next = await buffer.next();
        if (next === undefined) controller.close();
        else controller.enqueue(next);
      },
      cancel: () => stop?.(),
    },
    { highWaterMark: 0 },
  );
}

/** A waiting text delta that later deltas of the same call may be merged into. */
interface Merged {
  readonly event: RunEventOf<'text-delta'>;
  /** Joined pieces of 1,024 deltas each, so a long stall costs the text, not one string per delta. */
  readonly chunks: string[];
  parts: string[];
  at: number;
}

type Entry = RunEvent | Merged;

class EventBuffer {
  private readonly queue: Entry[] = [];
  private head = 0;
  /** Per call id, its latest waiting delta, while nothing else of that call queued after it. */
  private readonly open = new Map<string, Merged>();
  private ended = false;
  private failure: { error: unknown } | undefined;
  private reader: (() => void) | undefined;
  private room: { promise: Promise<void>; resolve: () => void } | undefined;

  constructor(
    private readonly bufferSize: number,
    private readonly conflate: boolean,
  ) {}

  get size(): number {
    return this.queue.length - this.head;
  }

  gate(): PromiseLike<void> | undefined {
    if (this.size < this.bufferSize) return undefined;
    if (this.room === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((done) => (resolve = done));
      this.room = { promise, resolve };
    }
    return this.room.promise;
  }

  push(event: RunEvent): void {
    if (this.conflate) {
      const callId = event.callId;
      if (event.type === 'text-delta') {
        const merged = this.open.get(callId);
        if (merged !== undefined && this.size >= this.bufferSize) {
          merged.parts.push(event.delta);
          merged.at = event.at;
          if (merged.parts.length === 1024) {
            merged.chunks.push(merged.parts.join(''));
            merged.parts = [];
          }
          return;
        }
        const entry: Merged = { event, chunks: [], parts: [event.delta], at: event.at };
        this.open.set(callId, entry);
        this.queue.push(entry);
        this.wake();
        return;
      }
      this.open.delete(callId);
    }
    this.queue.push(event);
    this.wake();
  }

  end(): void {
    this.ended = true;
    this.wake();
  }

  fail(error: unknown): void {
    this.failure = { error };
    this.wake();
  }

  async next(): Promise<RunEvent | undefined> {
    while (this.size === 0) {
      if (this.failure !== undefined) throw this.failure.error;
      if (this.ended) return undefined;
      await new Promise<void>((resolve) => (this.reader = resolve));
    }
    const entry = this.queue[this.head] as Entry;
    this.queue[this.head] = undefined as unknown as Entry;
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    if (this.room !== undefined && this.size < this.bufferSize) {
      const { resolve } = this.room;
      this.room = undefined;
      resolve();
    }
    return 'parts' in entry ? this.release(entry) : entry;
  }

  private release(merged: Merged): RunEvent {
    if (this.open.get(merged.event.callId) === merged) this.open.delete(merged.event.callId);
    if (merged.chunks.length === 0 && merged.parts.length === 1) return merged.event;
    return { ...merged.event, at: merged.at, delta: merged.chunks.join('') + merged.parts.join('') };
  }

  private wake(): void {
    const reader = this.reader;
    this.reader = undefined;
    reader?.();
  }
}
