import { asyncScheduler, isObservable, type Observable, type SchedulerLike, type Subscription } from 'rxjs';
import * as z from 'zod';
import { ConfigError, configRules, parseConfig, runEventStream, scheduleDelay, type RunContext, type RunDelivery, type RunEvent } from '@rxagents/core';
import { ViewerStalledError } from './errors/ViewerStalledError';
import { ChunkWriter } from './internal/ChunkWriter';
import { exposedError } from './internal/exposeErrors';
import { redactError, type ExposeError } from './redactError';
import type { RunMessageMetadata, RunTextPartMetadata, RunUIDataTypes, RunUIMessageChunk } from './RunUIMessageChunk';

/**
 * What {@link toUIMessageStream} reads: a run's events, or a function that starts the run with a pacing
 * function (as `runEventStream`'s `start`), so that the stream's reader paces the run.
 *
 * @example
 * ```ts
 * import { from } from 'rxjs';
 * import { defineAgent, invoke$, observeRun } from '@rxagents/core';
 * import type { UIMessageStreamSource } from '@rxagents/web';
 *
 * const writer = defineAgent('writer', () => from(['Once ', 'upon ', 'a time.']));
 * const source: UIMessageStreamSource = (pace) => observeRun('story', 'go', (run) => invoke$(writer, 'go', { run }), { pace });
 * console.log(typeof source); // function
 * ```
 */
export type UIMessageStreamSource = Observable<RunEvent> | ((pace: RunContext['pace']) => Observable<RunEvent>);

/**
 * Options of {@link toUIMessageStream}.
 *
 * @example
 * ```ts
 * import type { ToUIMessageStreamOptions } from '@rxagents/web';
 *
 * const options: ToUIMessageStreamOptions = { delivery: 'conflate', bufferSize: 64 };
 * console.log(options.delivery); // conflate
 * ```
 */
export interface ToUIMessageStreamOptions {
  /** How many run events may wait for the reader. Default 256. */
  readonly bufferSize?: number;
  /** `pace` (default: the run waits for the reader) or `conflate` (text deltas merge while the reader is behind). */
  readonly delivery?: RunDelivery;
  /** The assistant message's id. Default: the run's id. */
  readonly messageId?: string;
  /** Aborting it cancels the run (every agent's `AbortSignal` fires) and ends the stream. */
  readonly signal?: AbortSignal;
  /**
   * What the browser receives of an error: the `errorText` of `error` chunks, an `abort` chunk's reason
   * when it is an error, and the `error` of the `call-error`, `run-end` and `step` events in data parts.
   * Default {@link redactError}: name, code, retryable and a generic message.
   */
  readonly exposeError?: ExposeError;
  /**
   * How long the reader may go without asking for more after its last chunk, in milliseconds, before it is
   * cut off: the run is cancelled (every agent's `AbortSignal` fires) and the stream ends with an `error`
   * chunk (`VIEWER_STALLED`). Default 30,000; `Infinity` never cuts one off.
   */
  readonly stallTimeoutMs?: number;
  /** The clock of `stallTimeoutMs`. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /**
   * Continue a message the page already holds, up to these interrupts: the source replays the run from
   * its start (a run kept by a registry, a shared replay), nothing is sent until the `interrupt` events
   * of all these ids have passed (or the run ends), then a `start` chunk and the rest of the run. Pass
   * the ids a chat request answered ({@link approvalAnswersOf}), so the page's tool parts settle.
   * Default: none, the whole run is sent. At most 1,000 ids.
   */
  readonly continueAfter?: readonly string[];
  /**
   * End the message when the run asks for an approval: after its tool part, `finish` (reason
   * `tool-calls`), and the stream stops reading the run, so the page's chat is `ready` and sends the
   * answer itself (`sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses`). Only
   * for a run kept going elsewhere (a source that does not cancel the run when unsubscribed): with a
   * start function as `source`, ending the stream cancels the run. An approval named in `continueAfter`
   * (already answered) does not end it, even asked again by a run resumed from its journal. Default `false`.
   */
  readonly endAtApproval?: boolean;
}

/**
 * The zod schema of {@link ToUIMessageStreamOptions}: strict, so a misspelled option is a `ConfigError` naming it.
 *
 * @example
 * ```ts
 * import { ToUIMessageStreamOptionsSchema } from '@rxagents/web';
 *
 * console.log(ToUIMessageStreamOptionsSchema.safeParse({ delivery: 'conflate' }).success); // true
 * ```
 */
export const ToUIMessageStreamOptionsSchema = z.strictObject({
  bufferSize: configRules.positiveInt().optional(),
  delivery: z.enum(['pace', 'conflate'], { error: "must be 'pace' or 'conflate'" }).optional(),
  messageId: configRules.nonEmptyString().optional(),
  signal: configRules.abortSignal().optional(),
  exposeError: configRules.function<ExposeError>().optional(),
  stallTimeoutMs: configRules.timeoutMs().optional(),
  scheduler: configRules.scheduler().optional(),
  continueAfter: z
    .array(configRules.nonEmptyString(), { error: 'must be a list of interrupt ids' })
    .max(1_000, 'must hold at most 1000 interrupt ids')
    .optional(),
  endAtApproval: z.boolean({ error: 'must be a boolean' }).optional(),
});

/**
 * Turns a run's events into an AI SDK UI message stream: the run becomes one assistant message that
 * `useChat` (or `readUIMessageStream`) builds as it streams.
 *
 * @remarks
 * The run's start is a `start` chunk (message id: the run's id, metadata {@link RunMessageMetadata}); each
 * agent call is a text part (`text-start`, `text-delta`s, `text-end`, with the call's id as the chunks' `id`
 * and {@link RunTextPartMetadata} as `providerMetadata.rxagents`, so calls running at once never mix;
 * a call whose whole reply is exactly a nested call's reply, passed on, ends its part empty with
 * `relay: true`, so each answer shows once);
 * handoffs, steps and metrics are `data-handoff`, `data-step` and `data-metrics` parts, every other event
 * a `data-run` part (see {@link RunUIDataTypes}). An approval the run asks for (`askForApproval`) is a
 * dynamic tool part the `ai` package's chat shows as waiting for approval: `tool-input-start` and
 * `tool-input-available` (the action as `toolName`, its arguments as `input`, the question as `title`,
 * `toolMetadata` `{ runId, interruptId, callId }`, the interrupt's id as `toolCallId`), then
 * `tool-approval-request` with the interrupt's id as `approvalId`; when it closes, `tool-output-available`
 * (approved: the output is the decision, since asking runs nothing), `tool-output-denied` (refused, or
 * refused by its timeout) or `tool-output-error` (unanswered: timed out, cancelled, cut off). A request
 * for input (`askForInput`) is a `data-interrupt` part ({@link RunInterruptData}) with the interrupt's id,
 * replaced when it closes. `continueAfter` and `endAtApproval` let the page's chat answer an approval
 * with its own request (see their docs). The end of the root run is a `finish` chunk; a run that
 * failed says why in an `error` chunk first, so `useChat` shows it as an error. If the events themselves
 * fail, an `error` chunk ends the stream. What a browser receives of an error is what `exposeError`
 * makes of it: by default ({@link redactError}) a generic message, the name and code staying in the
 * events of the data parts. Events that complete while nodes are still open (a run cut off before
 * its end) end those nodes as failed (code `RUN_CUT_OFF`, `The run ended before its nodes did`), then `error` and
 * `finish`, as a failed run does.
 *
 * A run cancelled on the server (aborting `signal`, or a root `run-end` whose error is an `AbortError`)
 * ends every node still open as cancelled: a `data-run` part with each node's `call-error` or `run-end`
 * (`AbortError`, the signal's reason as its message), its text part closed with status `cancelled`; then
 * an `abort` chunk with the reason, as the `ai` package ends a stream it aborts, then an `error` chunk
 * with the same text, and no `finish`. The `ai` package's chat (`useChat`, `AbstractChat` of `ai` 6)
 * ignores `abort` chunks and has no state for a message the server aborted (its `isAbort` is only for a
 * stop of the page's own): the `error` chunk is what it shows, status `error` with `error.message` the
 * reason and `onFinish` with `isError: true`. To tell a cancellation from a failure, a page reads the text
 * parts' `status` (`cancelled`) or the last `data-run` part (a `run-end` with an `AbortError`). On the
 * server, `createUIMessageStream`'s `onFinish` of a stream that merges this one says `isAborted: true`.
 *
 * Events pass through the same bounded buffer as `runEventStream`: with a start function as `source`
 * and `delivery: 'pace'` the stream's reader paces the run. Cancelling the stream (or aborting
 * `signal`) unsubscribes the run. A reader that asks for nothing for `stallTimeoutMs` after the last
 * chunk it was given is cut off: the run is unsubscribed and the stream ends with an `error` chunk
 * ({@link ViewerStalledError}'s message), so a stalled connection never holds a paced run for ever. Nothing from the `ai` package is imported: the chunks are plain objects.
 *
 * @param source - The run's events, or a function that starts the run with a pacing function.
 * @param options - Buffer, delivery, message id, an abort signal, what an error shows and the stall timeout.
 * @returns A `ReadableStream` of {@link RunUIMessageChunk}s.
 * @throws `ConfigError` for a bad option.
 *
 * @example
 * ```ts
 * import { from } from 'rxjs';
 * import { defineAgent, invoke$, observeRun } from '@rxagents/core';
 * import { toUIMessageStream } from '@rxagents/web';
 *
 * const writer = defineAgent('writer', () => from(['Once ', 'upon ', 'a time.']));
 * const chunks = toUIMessageStream((pace) => observeRun('story', 'go', (run) => invoke$(writer, 'go', { run }), { pace }));
 * for await (const chunk of chunks) console.log(chunk.type); // start, data-run, text-start, text-delta ×3, text-end, data-run, finish
 * ```
 *
 * @see {@link toUIMessageStreamResponse}
 */
export function toUIMessageStream(source: UIMessageStreamSource, options: ToUIMessageStreamOptions = {}): ReadableStream<RunUIMessageChunk> {
  checkSource('toUIMessageStream', source);
  const {
    bufferSize,
    delivery,
    messageId,
    signal,
    exposeError = redactError,
    stallTimeoutMs = 30_000,
    scheduler = asyncScheduler,
    continueAfter,
    endAtApproval,
  } = parseConfig(ToUIMessageStreamOptionsSchema, options, 'toUIMessageStream options');
  const start = typeof source === 'function' ? source : () => source;
  const events = runEventStream(start, { ...(bufferSize === undefined ? {} : { bufferSize }), ...(delivery === undefined ? {} : { delivery }) });
  const reader = events.getReader();
  const chunks = new ChunkWriter(messageId, exposeError, continueAfter, endAtApproval);
  let onAbort: (() => void) | undefined;
  // One timer per stream, firing at most every `stallTimeoutMs` (never one per chunk): a reader that has
  // not asked for more since `since`, the time of the last chunk handed over, for that long is cut off.
  let stall: Subscription | undefined;
  let armed = false;
  let pulling = false;
  let since = 0;
  let ended = false;
  const stop = (): void => {
    ended = true;
    stall?.unsubscribe();
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
  };
  const arm = (controller: ReadableStreamDefaultController<RunUIMessageChunk>, wait: number): void => {
    armed = true;
    stall = scheduleDelay(scheduler, wait, () => {
      armed = false;
      // A reader waiting for the run is not stalled; the next chunk handed over arms the timer again.
      if (ended || pulling) return;
      const idle = scheduler.now() - since;
      if (idle < stallTimeoutMs) return arm(controller, stallTimeoutMs - idle);
      stop();
      const error = new ViewerStalledError(stallTimeoutMs);
      void reader.cancel(error).catch(() => undefined);
      controller.enqueue({ type: 'error', errorText: exposedError(error, exposeError).message });
      controller.close();
    });
  };
  return new ReadableStream<RunUIMessageChunk>(
    {
      start: (controller) => {
        if (signal === undefined) return;
        onAbort = () => {
          if (ended) return;
          stop();
          void reader.cancel(signal.reason).catch(() => undefined);
          try {
            for (const chunk of chunks.abort(signal.reason)) controller.enqueue(chunk);
            controller.close();
          } catch {
            // Already closed: the run ended before the abort.
          }
        };
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      },
      pull: async (controller) => {
        pulling = true;
        let written: RunUIMessageChunk[] = [];
        let done = false;
        while (written.length === 0 && !done) {
          try {
            const next = await reader.read();
            if (signal?.aborted === true) return;
            if (next.done) {
              written = chunks.end();
              done = true;
            } else {
              written = chunks.write(next.value);
              if (chunks.paused) {
                // The message ended at an approval: the run goes on where it is kept, unread here.
                done = true;
                void reader.cancel().catch(() => undefined);
              }
            }
          } catch (error) {
            if (signal?.aborted === true) return;
            written = [{ type: 'error', errorText: exposedError(error, exposeError).message }];
            done = true;
          }
        }
        pulling = false;
        if (ended) return;
        for (const chunk of written) controller.enqueue(chunk);
        if (done) {
          stop();
          controller.close();
        } else {
          since = scheduler.now();
          if (!armed && stallTimeoutMs !== Infinity) arm(controller, stallTimeoutMs);
        }
      },
      cancel: (reason) => {
        stop();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}


/** Refuses a source that is neither run events nor a function starting them (it would fail only when read). */
export function checkSource(subject: string, source: unknown): void {
  if (!isObservable(source) && typeof source !== 'function') {
    throw new ConfigError(subject, [{ path: 'source', rule: 'must be an Observable of run events or a function returning one', received: source }]);
  }
}
