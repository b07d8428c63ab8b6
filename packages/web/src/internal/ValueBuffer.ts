/** A text delta of a run event: the only kind of value that `conflate` merges. */
interface Delta {
  readonly type: 'text-delta';
  readonly callId: string;
  readonly delta: string;
  readonly at?: number;
}

/** A waiting delta that later deltas of the same call may be merged into. */
interface Merged {
  readonly merged: Delta;
  /** Joined pieces of 1,024 deltas each, so a long stall costs the text, not one string per delta. */
  readonly chunks: string[];
  parts: string[];
  at: number | undefined;
}

type Entry<T> = { readonly value: T } | Merged;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** Whether `value` looks like a `RunEvent` (plain data with a string `type`, `runId` and `callId`). */
export function isRunEventLike(value: unknown): boolean {
  return isObject(value) && typeof value['type'] === 'string' && typeof value['runId'] === 'string' && typeof value['callId'] === 'string';
}

const isDelta = (value: unknown): value is Delta => isRunEventLike(value) && (value as Delta).type === 'text-delta' && typeof (value as Delta).delta === 'string';

/**
 * The bounded queue between a source and a slow reader, as core's `runEventStream` has, for any value:
 * `pace` holds the source back through {@link ValueBuffer.gate}; `conflate` merges a run's text deltas
 * per call, queues its other events, and keeps only the latest of other values while full.
 */
export class ValueBuffer<T> {
  private queue: Entry<T>[] = [];
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
    return this.queue.length;
  }

  /** A Promise while the buffer is full (the source should wait), else `undefined`. */
  gate(): PromiseLike<void> | undefined {
    if (this.size < this.bufferSize) return undefined;
    if (this.room === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((done) => (resolve = done));
      this.room = { promise, resolve };
    }
    return this.room.promise;
  }

  push(value: T): void {
    if (this.conflate) {
      const full = this.size >= this.bufferSize;
      if (isDelta(value)) {
        const open = this.open.get(value.callId);
        if (open !== undefined && full) {
          open.parts.push(value.delta);
          open.at = value.at;
          if (open.parts.length === 1024) {
            open.chunks.push(open.parts.join(''));
            open.parts = [];
          }
          return;
        }
        const entry: Merged = { merged: value, chunks: [], parts: [value.delta], at: value.at };
        this.open.set(value.callId, entry);
        this.queue.push(entry);
        this.wake();
        return;
      }
      if (isRunEventLike(value)) this.open.delete((value as unknown as Delta).callId);
      else if (full) {
        const last = this.queue[this.queue.length - 1];
        if (last !== undefined && 'value' in last && !isRunEventLike(last.value)) {
          this.queue[this.queue.length - 1] = { value };
          return;
        }
      }
    }
    this.queue.push({ value });
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

  /**
   * Everything waiting (at least one value), `undefined` at the end; rejects with the source's error
   * once the values before it are taken.
   */
  async take(): Promise<T[] | undefined> {
    while (this.size === 0) {
      if (this.failure !== undefined) throw this.failure.error;
      if (this.ended) return undefined;
      await new Promise<void>((resolve) => (this.reader = resolve));
    }
    const taken = this.queue.map((entry) => ('value' in entry ? entry.value : this.release(entry)));
    this.queue = [];
    if (this.room !== undefined) {
      const { resolve } = this.room;
      this.room = undefined;
      resolve();
    }
    return taken;
  }

  private release(entry: Merged): T {
    if (this.open.get(entry.merged.callId) === entry) this.open.delete(entry.merged.callId);
    if (entry.chunks.length === 0 && entry.parts.length === 1) return entry.merged as T;
    const delta = entry.chunks.join('') + entry.parts.join('');
    return (entry.at === undefined ? { ...entry.merged, delta } : { ...entry.merged, at: entry.at, delta }) as T;
  }

  private wake(): void {
    const reader = this.reader;
    this.reader = undefined;
    reader?.();
  }
}
