import { asyncScheduler, isObservable, type Observable, type SchedulerLike } from 'rxjs';
import * as z from 'zod';
import { ConfigError, configRules, DeliveryBuffer, parseConfig, type RunContext, type RunDelivery } from '@rxagents/core';
import { encodeFrame, eventStreamBody, type Frame } from './internal/eventStreamBody';
import { withExposedError } from './internal/exposeErrors';
import { redactError, type ExposeError } from './redactError';

/**
 * What {@link toEventStream} and {@link toEventStreamResponse} stream: an Observable, or a function that
 * starts one with the pacing function of the HTTP reader (pass it on as the run's `pace` option).
 *
 * @example
 * ```ts
 * import { from } from 'rxjs';
 * import { defineAgent, invoke$, observeRun, type RunEvent } from '@rxagents/core';
 * import type { EventStreamSource } from '@rxagents/web';
 *
 * const writer = defineAgent('writer', () => from(['Hello']));
 * const source: EventStreamSource<RunEvent> = (pace) => observeRun('hello', 'hi', (run) => invoke$(writer, 'hi', { run }), { pace });
 * console.log(typeof source); // function
 * ```
 */
export type EventStreamSource<T> = Observable<T> | ((pace: RunContext['pace']) => Observable<T>);

/**
 * Options of {@link toEventStream}.
 *
 * @example
 * ```ts
 * import type { ToEventStreamOptions } from '@rxagents/web';
 *
 * const options: ToEventStreamOptions<unknown> = { bufferSize: 64, delivery: 'conflate', heartbeatMs: 10_000 };
 * console.log(options.delivery); // conflate
 * ```
 */
export interface ToEventStreamOptions<T> {
  /** How many values may wait for the reader. Default 256. */
  readonly bufferSize?: number;
  /**
   * What happens when they are that many: `pace` (default) holds a run started with the given pacing
   * function back; `conflate` merges the text deltas of each agent call (other values: keeps the latest).
   */
  readonly delivery?: RunDelivery;
  /** Milliseconds between `: ping` comments while the reader waits (keeps proxies from closing an idle connection). Default 15,000; `Infinity` for none. */
  readonly heartbeatMs?: number;
  /**
   * How long the reader may go without reading while values wait for it, in milliseconds, before it is
   * cut off: a `VIEWER_STALLED` error frame ({@link ViewerStalledError}), the stream closes and the
   * source is unsubscribed (a run started with the given pacing function is cancelled, so a reader that
   * stopped reading never holds it for ever). Default 30,000; `Infinity` never cuts it off.
   */
  readonly stallTimeoutMs?: number;
  /** The clock of the heartbeat and of `stallTimeoutMs`. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** The SSE `event:` name of a value. Default: its `type` when that is a string, else `message`. */
  readonly event?: (value: T) => string;
  /**
   * What the browser receives of an error: of the stream's own `event: error` frame and of the `error`
   * of `call-error`, `run-end` and `step` events. Default {@link redactError}: name, code, retryable and a
   * generic message; `(error) => error` sends messages as they are.
   */
  readonly exposeError?: ExposeError;
}

/** The zod rules of {@link ToEventStreamOptions}, shared with the functions that take them too. */
export const eventStreamOptionShape = {
  bufferSize: configRules.positiveInt().default(256),
  delivery: z.enum(['pace', 'conflate'], { error: "must be 'pace' or 'conflate'" }).default('pace'),
  heartbeatMs: configRules.timeoutMs().default(15_000),
  stallTimeoutMs: configRules.timeoutMs().default(30_000),
  scheduler: configRules.scheduler().default(asyncScheduler),
  event: configRules.function<(value: never) => string>().optional(),
  exposeError: configRules.function<ExposeError>().default(() => redactError),
};

const ToEventStreamOptionsSchema = z.strictObject(eventStreamOptionShape);

const defaultEventName = (value: unknown): string => {
  const type = typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
  return typeof type === 'string' ? type : 'message';
};

/** Whether `name` can be an `event:` line: not empty, no line break. */
const isEventName = (name: unknown): name is string => typeof name === 'string' && name.length > 0 && !/[\r\n]/.test(name);

/**
 * Builds the frames of one stream: ids count from 0, names checked (the few distinct names once each),
 * the error of an event that carries one exposed as `exposeError` says.
 */
export function frameMaker<T>(event: ((value: T) => string) | undefined, exposeError: ExposeError = redactError): (value: T, id: number) => Frame {
  const checked = new Set<string>();
  return (value, id) => {
    const name = event === undefined ? defaultEventName(value) : event(value);
    if (checked.has(name)) return { id: String(id), event: name, data: JSON.stringify(withExposedError(value, exposeError)) ?? 'null' };
    if (checked.size < 64 && isEventName(name)) checked.add(name);
    else if (!isEventName(name)) throw new ConfigError('event stream', [{ path: 'event', rule: 'must give a non-empty name without line breaks', received: name }]);
    return { id: String(id), event: name, data: JSON.stringify(withExposedError(value, exposeError)) ?? 'null' };
  };
}

/** Parses the shared options of the event stream functions. */
export function parseEventStreamOptions<T>(options: object, what: string): Required<Omit<ToEventStreamOptions<T>, 'event'>> & Pick<ToEventStreamOptions<T>, 'event'> {
  return parseConfig(ToEventStreamOptionsSchema, options, what) as Required<Omit<ToEventStreamOptions<T>, 'event'>> & Pick<ToEventStreamOptions<T>, 'event'>;
}

/**
 * Streams an Observable (typically a run's events) as Server-Sent Events: a `ReadableStream` of UTF-8
 * bytes to return as a response body.
 *
 * @remarks
 * Each value is one frame, `id: <n>`, `event: <name>`, `data: <JSON>`, where `n` counts the values of
 * this stream from 0 (a client sends the last one back as `Last-Event-ID`). The source is subscribed
 * when the stream is made. The reader sets the pace: at most `bufferSize` values wait for it; with
 * `delivery: 'pace'` a run started by the given function waits while they are that many (see core's
 * `runEventStream`), with `conflate` the run never waits and text deltas are merged. While the reader
 * waits for data a `: ping` comment goes out every `heartbeatMs`. A reader that reads nothing for
 * `stallTimeoutMs` while values wait for it is cut off with a `VIEWER_STALLED` error frame
 * ({@link ViewerStalledError}), and the source is unsubscribed. Cancelling the stream (the client went
 * away) unsubscribes the source, so every agent's `AbortSignal` fires. When the source errors, an
 * `event: error` frame carries what `exposeError` makes of it and the stream closes; when it completes,
 * the stream closes. By default ({@link redactError}) a browser gets an error's name, code and
 * retryability with a generic message, in that frame and in the `error` of `call-error`, `run-end` and
 * `step` events: an error's message can name hosts and paths.
 *
 * @param source - The values, or a function starting them with the reader's pacing function.
 * @param options - Buffer, delivery, heartbeat, stall timeout, clock, event names and what an error shows.
 * @returns The `text/event-stream` body.
 * @throws `ConfigError` for a bad option.
 *
 * @example
 * ```ts
 * import { from } from 'rxjs';
 * import { defineAgent, invoke$, observeRun } from '@rxagents/core';
 * import { toEventStream } from '@rxagents/web';
 *
 * const writer = defineAgent('writer', () => from(['Hello ', 'world']));
 * const body = toEventStream((pace) => observeRun('hello', 'hi', (run) => invoke$(writer, 'hi', { run }), { pace }));
 * const text = await new Response(body).text();
 * console.log(text.split('\n\n')[0]); // id: 0 / event: run-start / data: {"type":"run-start",...}
 * ```
 */
export function toEventStream<T>(source: EventStreamSource<T>, options: ToEventStreamOptions<T> = {}): ReadableStream<Uint8Array> {
  return eventStreamFrom(source, parseEventStreamOptions<T>(options, 'toEventStream options'));
}

/** {@link toEventStream} with parsed options and an optional abort signal. */
export function eventStreamFrom<T>(
  source: EventStreamSource<T>,
  options: ReturnType<typeof parseEventStreamOptions<T>>,
  signal?: AbortSignal,
): ReadableStream<Uint8Array> {
  if (!isObservable(source) && typeof source !== 'function') {
    throw new ConfigError('toEventStream', [{ path: 'source', rule: 'must be an Observable or a function returning one', received: source }]);
  }
  const { bufferSize, delivery, heartbeatMs, stallTimeoutMs, scheduler, event, exposeError } = options;
  const buffer = new DeliveryBuffer<T>(bufferSize, delivery);
  const pace = delivery === 'pace' ? () => buffer.gate() : undefined;
  const frame = frameMaker(event, exposeError);
  const encoder = new TextEncoder();
  let nextId = 0;
  /** A value that could not be framed, after the values before it in its batch had been. */
  let unframed: { error: unknown } | undefined;
  const values$ = isObservable(source) ? source : source(pace);
  const subscription = values$.subscribe({
    next: (value) => buffer.push(value),
    error: (error: unknown) => buffer.fail(error),
    complete: () => buffer.end(),
  });
  return eventStreamBody(
    {
      take: async () => {
        if (unframed !== undefined) throw unframed.error;
        const values = await buffer.take();
        if (values === undefined) return undefined;
        let text = '';
        for (const value of values) {
          try {
            text += encodeFrame(frame(value, nextId++));
          } catch (error) {
            if (text === '') throw error;
            // The values before it still go out; its error frame follows them on the next read.
            unframed = { error };
            subscription.unsubscribe();
            break;
          }
        }
        return encoder.encode(text);
      },
      waiting: () => buffer.size > 0 || unframed !== undefined,
      cancel: () => subscription.unsubscribe(),
      exposeError,
    },
    { heartbeatMs, stallTimeoutMs, scheduler },
    signal,
  );
}
