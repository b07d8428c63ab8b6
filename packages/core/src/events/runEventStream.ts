import type { Observable } from 'rxjs';
import * as z from 'zod';
import { positiveInt } from '../configRules';
import { ConfigError } from '../errors/ConfigError';
import { parseConfig } from '../parseConfig';
import type { RunContext } from './RunContext';
import { DeliveryBuffer, type RunDelivery } from './DeliveryBuffer';
import type { RunEvent } from './RunEvent';

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
 * @throws `ConfigError` when `start` is not a function or an option is bad.
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
  if (typeof start !== 'function') throw new ConfigError('runEventStream', [{ path: 'start', rule: 'must be a function', received: start }]);
  const { bufferSize, delivery } = parseConfig(RunEventStreamOptionsSchema, options, 'runEventStream options');
  const buffer = new DeliveryBuffer<RunEvent>(bufferSize, delivery);
  let stop: (() => void) | undefined;
  return new ReadableStream<RunEvent>(
    {
      start: () => {
        // What `start` throws errors the stream, as its events' error does (thrown here, it would escape
        // from the ReadableStream constructor instead).
        try {
          const subscription = start(delivery === 'pace' ? () => buffer.gate() : undefined).subscribe({
            next: (event) => buffer.push(event),
            error: (error: unknown) => buffer.fail(error),
            complete: () => buffer.end(),
          });
          stop = () => subscription.unsubscribe();
        } catch (error) {
          buffer.fail(error);
        }
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
