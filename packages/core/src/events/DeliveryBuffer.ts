import { ConfigError } from '../errors/ConfigError';
import { MAX_DELTA_LENGTH } from '../limits';

/**
 * How {@link runEventStream} and a {@link DeliveryBuffer} treat a reader that is slower than the run.
 *
 * @remarks
 * - `pace` (the default): lossless. At most `bufferSize` events wait for the reader; while the buffer is
 *   full the run waits too: no new agent call starts and no chunk is pulled from an agent that returns
 *   an `AsyncIterable` (a model SDK's stream). An agent that pushes an Observable cannot be paused, so
 *   the chunks it pushes meanwhile still queue (bounded by that one reply).
 * - `conflate`: for UIs. The run never waits. While the buffer is full, a text delta is merged into the
 *   call's latest waiting delta instead of queueing (the text is all there, in fewer, larger pieces, each
 *   of at most `MAX_DELTA_LENGTH` characters); every other event still queues (a few per call). A
 *   stalled reader costs the text itself, not an object per delta.
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

/** A run's text delta, by shape: the only kind of value that `conflate` merges. */
interface Delta {
  readonly type: 'text-delta';
  readonly callId: string;
  readonly delta: string;
  readonly at?: number;
}

/** A waiting delta that later deltas of the same call may be merged into (a class, so no value pushed can be one). */
class Merged {
  /** Joined pieces of 1,024 deltas each, so a long stall costs the text, not one string per delta. */
  readonly chunks: string[] = [];
  parts: string[];
  /** How many characters it holds: a merged delta stops growing at `MAX_DELTA_LENGTH`. */
  length: number;

  constructor(readonly first: Delta) {
    this.parts = [first.delta];
    this.length = first.delta.length;
  }
}

/** A value as pushed, or a run of merged deltas: values are queued as they are, with no wrapper each. */
type Entry<T> = T | Merged;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** Whether `value` has the shape of a run event: an object with a string `type`, `runId` and `callId`. */
function isRunEventLike(value: unknown): boolean {
  return isObject(value) && typeof value['type'] === 'string' && typeof value['runId'] === 'string' && typeof value['callId'] === 'string';
}

const isDelta = (value: unknown): value is Delta => isRunEventLike(value) && (value as Delta).type === 'text-delta' && typeof (value as Delta).delta === 'string';

/**
 * The bounded queue between a source that pushes (a run, any Observable) and a reader that pulls at its
 * own speed: what {@link runEventStream} and `@rxagents/web`'s `toEventStream` read through.
 *
 * @remarks
 * - `pace`: lossless. Everything pushed queues; {@link DeliveryBuffer.gate} returns a Promise while
 *   `bufferSize` values wait, which a run passed it as its `pace` option awaits before it starts an agent
 *   call or pulls the next chunk of an `AsyncIterable` agent. The source is held back, nothing is dropped.
 * - `conflate`: the source never waits. While `bufferSize` values wait, a run's `text-delta` is merged
 *   into the same call's latest waiting delta (the text is all kept, in fewer, longer deltas); a merged
 *   delta grows to at most `MAX_DELTA_LENGTH` characters, then the call's next delta queues and starts
 *   the next one (so a long stall queues one value per 64 Ki characters of a call's text). A merged
 *   delta stays where its first piece queued and keeps that piece's `at`, so the times a reader sees
 *   never go back, though text merged into it may have been said after events queued behind it (of
 *   other calls: a call's own text stays in order). Any other run event still queues; a value that is not a run event replaces the
 *   latest waiting one of its kind (for progress or metrics values, only the latest matters).
 *
 * A reader takes values one at a time ({@link DeliveryBuffer.next}) or all that wait
 * ({@link DeliveryBuffer.take}); both resolve `undefined` once the source ended and everything was taken,
 * and reject with the source's error after the values before it.
 *
 * @example
 * ```ts
 * import { DeliveryBuffer } from '@rxagents/core';
 *
 * const buffer = new DeliveryBuffer<number>(2, 'pace');
 * buffer.push(1);
 * buffer.push(2);
 * console.log(buffer.gate() !== undefined); // true: full, the source should wait
 * console.log(await buffer.next()); // 1
 * console.log(buffer.gate()); // undefined: room again
 * buffer.end();
 * console.log(await buffer.take(), await buffer.take()); // [ 2 ] undefined
 * ```
 */
export class DeliveryBuffer<T> {
  #queue: Entry<T>[] = [];
  #head = 0;
  /** Per call id, its latest waiting delta, while nothing else of that call queued after it. */
  readonly #open = new Map<string, Merged>();
  #ended = false;
  #failure: { error: unknown } | undefined;
  /** Resolved when a value arrives or the source ends; shared by every reader waiting at that moment. */
  #arrival: { promise: Promise<void>; resolve: () => void } | undefined;
  #room: { promise: Promise<void>; resolve: () => void } | undefined;
  readonly #bufferSize: number;
  readonly #conflate: boolean;

  /**
   * @param bufferSize - How many values may wait for the reader: a positive integer.
   * @param delivery - `pace` (hold the source back) or `conflate` (merge deltas, never wait).
   * @throws `ConfigError` naming the argument that is wrong.
   */
  constructor(bufferSize: number, delivery: RunDelivery) {
    if (!Number.isSafeInteger(bufferSize) || bufferSize < 1) {
      throw new ConfigError('DeliveryBuffer', [{ path: 'bufferSize', rule: 'must be a positive integer', received: bufferSize }]);
    }
    if (delivery !== 'pace' && delivery !== 'conflate') {
      throw new ConfigError('DeliveryBuffer', [{ path: 'delivery', rule: "must be 'pace' or 'conflate'", received: delivery }]);
    }
    this.#bufferSize = bufferSize;
    this.#conflate = delivery === 'conflate';
  }

  /** How many values wait for the reader (a run of merged deltas counts once). */
  get size(): number {
    return this.#queue.length - this.#head;
  }

  /** A Promise that resolves when there is room again while the buffer is full, else `undefined`: a run's `pace`. */
  gate(): PromiseLike<void> | undefined {
    if (this.size < this.#bufferSize) return undefined;
    if (this.#room === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((done) => (resolve = done));
      this.#room = { promise, resolve };
    }
    return this.#room.promise;
  }

  /** Adds a value from the source (see the class remarks for what `conflate` does while full). */
  push(value: T): void {
    if (this.#conflate) {
      const full = this.size >= this.#bufferSize;
      if (isDelta(value)) {
        const open = this.#open.get(value.callId);
        // A merged delta holds at most MAX_DELTA_LENGTH characters: the rest starts the next one, so no
        // frame of a stalled reader grows with the call's whole text.
        if (open !== undefined && full && open.length + value.delta.length <= MAX_DELTA_LENGTH) {
          open.length += value.delta.length;
          open.parts.push(value.delta);
          if (open.parts.length === 1024) {
            open.chunks.push(open.parts.join(''));
            open.parts = [];
          }
          return;
        }
        const entry = new Merged(value);
        this.#open.set(value.callId, entry);
        this.#queue.push(entry);
        this.#wake();
        return;
      }
      if (isRunEventLike(value)) this.#open.delete((value as unknown as Delta).callId);
      else if (full) {
        const last = this.#queue[this.#queue.length - 1];
        if (this.size > 0 && !(last instanceof Merged) && !isRunEventLike(last)) {
          this.#queue[this.#queue.length - 1] = value;
          return;
        }
      }
    }
    this.#queue.push(value);
    this.#wake();
  }

  /** The source completed: the reader gets what waits, then `undefined`. */
  end(): void {
    this.#ended = true;
    this.#wake();
  }

  /** The source failed: the reader gets what waits, then the error. */
  fail(error: unknown): void {
    this.#failure = { error };
    this.#wake();
  }

  /** The next value, waiting for one if none waits; `undefined` at the end. */
  async next(): Promise<T | undefined> {
    await this.#waitForValue();
    if (this.size === 0) return undefined;
    const entry = this.#queue[this.#head] as Entry<T>;
    this.#queue[this.#head] = undefined as unknown as Entry<T>;
    this.#head++;
    // Reclaims the taken slots now and then, so a long run does not keep them all.
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue.splice(0, this.#head);
      this.#head = 0;
    }
    this.#freeRoom();
    return this.#valueOf(entry);
  }

  /** Every value that waits (at least one), waiting for one if none does; `undefined` at the end. */
  async take(): Promise<T[] | undefined> {
    await this.#waitForValue();
    if (this.size === 0) return undefined;
    const taken: T[] = [];
    for (let i = this.#head; i < this.#queue.length; i++) taken.push(this.#valueOf(this.#queue[i] as Entry<T>));
    this.#queue = [];
    this.#head = 0;
    this.#freeRoom();
    return taken;
  }

  /** Resolves once a value waits or the source ended; throws the source's error once nothing waits before it. */
  async #waitForValue(): Promise<void> {
    while (this.size === 0) {
      if (this.#failure !== undefined) throw this.#failure.error;
      if (this.#ended) return;
      if (this.#arrival === undefined) {
        let resolve!: () => void;
        const promise = new Promise<void>((done) => (resolve = done));
        this.#arrival = { promise, resolve };
      }
      await this.#arrival.promise;
    }
  }

  #freeRoom(): void {
    if (this.#room !== undefined && this.size < this.#bufferSize) {
      const { resolve } = this.#room;
      this.#room = undefined;
      resolve();
    }
  }

  #valueOf(entry: Entry<T>): T {
    if (!(entry instanceof Merged)) return entry;
    if (this.#open.get(entry.first.callId) === entry) this.#open.delete(entry.first.callId);
    if (entry.chunks.length === 0 && entry.parts.length === 1) return entry.first as T;
    return { ...entry.first, delta: entry.chunks.join('') + entry.parts.join('') } as T;
  }

  #wake(): void {
    const arrival = this.#arrival;
    this.#arrival = undefined;
    arrival?.resolve();
  }
}
