import type { Observable } from 'rxjs';
import { z } from 'zod';
import { configRules, OpenRunNodes, parseConfig, runEventStream, type RunContext, type RunDelivery, type RunEvent, type RunEventOf, type SerializedError } from '@rxagents/core';
import { exposedError, withExposedError } from './internal/exposeErrors';
import { redactError, type ExposeError } from './redactError';

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
 * The message metadata of the assistant message a run becomes: set by the `start` chunk, completed by `finish`.
 *
 * @example
 * ```ts
 * import type { RunMessageMetadata } from '@rxagents/web';
 *
 * const metadata: RunMessageMetadata = { runId: 'r1', name: 'story', success: true, durationMs: 120 };
 * console.log(metadata.success); // true
 * ```
 */
export interface RunMessageMetadata {
  /** The run's id. */
  readonly runId: string;
  /** The run's name (`debate`, `handoff`, yours). */
  readonly name: string;
  /** Whether the run succeeded; set when it ends. */
  readonly success?: boolean;
  /** How long the run took, in ms on its scheduler; set when it ends. */
  readonly durationMs?: number;
}

/**
 * The data parts a run's message carries, by name (`data-handoff` has the `handoff` event as its data, and
 * so on): type `useChat` with `UIMessage<RunMessageMetadata, RunUIDataTypes>`.
 *
 * @remarks
 * `metrics` parts carry the channel's name (`source`) as their id, so each channel's part is replaced by its
 * latest sample. `run` parts carry every other event that is not an agent's text: nested runs' starts and
 * ends, a failed call's `call-error`, a pattern's `message`, `round-end` and `termination`, `usage`,
 * `choreography-event` and `custom` events (a {@link humanAgent}'s `input-request` among them).
 *
 * @example
 * ```ts
 * import type { RunUIDataTypes } from '@rxagents/web';
 *
 * const handoff: RunUIDataTypes['handoff'] = { type: 'handoff', runId: 'r', callId: 'c', parentCallId: null, at: 0, from: 'intake', to: 'billing', taskId: 't1' };
 * console.log(handoff.to); // billing
 * ```
 */
export interface RunUIDataTypes {
  readonly handoff: RunEventOf<'handoff'>;
  readonly step: RunEventOf<'step'>;
  readonly metrics: RunEventOf<'metrics'>;
  readonly run: RunEvent;
  readonly [name: string]: unknown;
}

/**
 * Where an agent's text part came from: its `providerMetadata.rxagents`.
 *
 * @example
 * ```ts
 * import type { RunTextPartMetadata } from '@rxagents/web';
 *
 * const metadata: RunTextPartMetadata = { callId: 'c1', agentId: 'writer', parentCallId: 'r1', status: 'done', durationMs: 40 };
 * console.log(metadata.agentId); // writer
 * ```
 */
export interface RunTextPartMetadata {
  /** The agent call's id (also the text chunks' `id`). */
  readonly callId: string;
  /** The agent that wrote the text. */
  readonly agentId: string;
  /** The node the call belongs to. */
  readonly parentCallId: string | null;
  /**
   * `streaming` while the agent writes, then `done`, or `failed` (the `call-error` is in a `data-run`
   * part), or `cancelled` when the call was cancelled (its `call-error` is an `AbortError`: the run was
   * cancelled, or the stream aborted, while the agent wrote).
   */
  readonly status: 'streaming' | 'done' | 'failed' | 'cancelled';
  /** How long the call took; set when it ends. */
  readonly durationMs?: number;
}

type ProviderMetadata = { readonly rxagents: { readonly [key in keyof RunTextPartMetadata]: RunTextPartMetadata[key] } };

/**
 * A chunk of the AI SDK UI message stream protocol (version 1) as {@link toUIMessageStream} writes it: the
 * subset of the `ai` package's `UIMessageChunk` that a run produces, assignable to it.
 *
 * @example
 * ```ts
 * import type { RunUIMessageChunk } from '@rxagents/web';
 *
 * const chunk: RunUIMessageChunk = { type: 'text-delta', id: 'c1', delta: 'Hello' };
 * console.log(chunk.type); // text-delta
 * ```
 */
export type RunUIMessageChunk =
  | { readonly type: 'start'; readonly messageId?: string; readonly messageMetadata?: RunMessageMetadata }
  | { readonly type: 'text-start'; readonly id: string; readonly providerMetadata: ProviderMetadata }
  | { readonly type: 'text-delta'; readonly id: string; readonly delta: string }
  | { readonly type: 'text-end'; readonly id: string; readonly providerMetadata: ProviderMetadata }
  | { readonly type: 'data-handoff'; readonly data: RunEventOf<'handoff'> }
  | { readonly type: 'data-step'; readonly data: RunEventOf<'step'> }
  | { readonly type: 'data-metrics'; readonly id: string; readonly data: RunEventOf<'metrics'> }
  | { readonly type: 'data-run'; readonly data: RunEvent }
  | { readonly type: 'error'; readonly errorText: string }
  | { readonly type: 'abort'; readonly reason?: string }
  | { readonly type: 'finish'; readonly finishReason: 'stop' | 'error'; readonly messageMetadata?: RunMessageMetadata };

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
});

/**
 * Turns a run's events into an AI SDK UI message stream: the run becomes one assistant message that
 * `useChat` (or `readUIMessageStream`) builds as it streams.
 *
 * @remarks
 * The run's start is a `start` chunk (message id: the run's id, metadata {@link RunMessageMetadata}); each
 * agent call is a text part (`text-start`, `text-delta`s, `text-end`, with the call's id as the chunks' `id`
 * and {@link RunTextPartMetadata} as `providerMetadata.rxagents`, so calls running at once never mix);
 * handoffs, steps and metrics are `data-handoff`, `data-step` and `data-metrics` parts, every other event
 * a `data-run` part (see {@link RunUIDataTypes}). The end of the root run is a `finish` chunk; a run that
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
 * `signal`) unsubscribes the run. Nothing from the `ai` package is imported: the chunks are plain objects.
 *
 * @param source - The run's events, or a function that starts the run with a pacing function.
 * @param options - Buffer, delivery, message id, an abort signal and what an error shows.
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
  const { bufferSize, delivery, messageId, signal, exposeError = redactError } = parseConfig(ToUIMessageStreamOptionsSchema, options, 'toUIMessageStream options');
  const start = typeof source === 'function' ? source : () => source;
  const events = runEventStream(start, { ...(bufferSize === undefined ? {} : { bufferSize }), ...(delivery === undefined ? {} : { delivery }) });
  const reader = events.getReader();
  const chunks = new ChunkWriter(messageId, exposeError);
  let onAbort: (() => void) | undefined;
  return new ReadableStream<RunUIMessageChunk>(
    {
      start: (controller) => {
        if (signal === undefined) return;
        onAbort = () => {
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
        let written: RunUIMessageChunk[] = [];
        let done = false;
        while (written.length === 0 && !done) {
          try {
            const next = await reader.read();
            if (signal?.aborted === true) return;
            if (next.done) {
              written = chunks.end();
              done = true;
            } else written = chunks.write(next.value);
          } catch (error) {
            if (signal?.aborted === true) return;
            written = [{ type: 'error', errorText: exposedError(error, exposeError).message }];
            done = true;
          }
        }
        for (const chunk of written) controller.enqueue(chunk);
        if (done) {
          if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
          controller.close();
        }
      },
      cancel: (reason) => {
        if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** Maps events to chunks, remembering the open text parts and whether the message started and finished. */
class ChunkWriter {
  private started = false;
  private finished = false;
  private name = '';
  private readonly open = new Map<string, RunEventOf<'call-start'>>();
  /** Every node of the run still open, text parts or not: a cut-off run ends them all. */
  private readonly nodes = new OpenRunNodes();

  constructor(
    private readonly messageId: string | undefined,
    private readonly exposeError: ExposeError,
  ) {}

  write(raw: RunEvent): RunUIMessageChunk[] {
    if (this.finished) return [];
    const event = withExposedError(raw, this.exposeError);
    this.nodes.track(event);
    const chunks: RunUIMessageChunk[] = [];
    if (!this.started) {
      this.started = true;
      if (event.type === 'run-start' && event.parentCallId === null) this.name = event.name;
      chunks.push({ type: 'start', messageId: this.messageId ?? event.runId, messageMetadata: { runId: event.runId, name: this.name } });
    }
    switch (event.type) {
      case 'call-start':
        this.open.set(event.callId, event);
        chunks.push({ type: 'text-start', id: event.callId, providerMetadata: textMetadata(event, 'streaming') });
        break;
      case 'text-delta':
        if (this.open.has(event.callId)) chunks.push({ type: 'text-delta', id: event.callId, delta: event.delta });
        break;
      case 'call-end':
      case 'call-error': {
        const start = this.open.get(event.callId);
        if (start === undefined) break;
        this.open.delete(event.callId);
        const status = event.type === 'call-end' ? 'done' : isAbort(event.error) ? 'cancelled' : 'failed';
        chunks.push({ type: 'text-end', id: event.callId, providerMetadata: textMetadata(start, status, event.durationMs) });
        if (event.type === 'call-error') chunks.push({ type: 'data-run', data: event });
        break;
      }
      case 'handoff':
        chunks.push({ type: 'data-handoff', data: event });
        break;
      case 'step':
        chunks.push({ type: 'data-step', data: event });
        break;
      case 'metrics':
        chunks.push({ type: 'data-metrics', id: event.source, data: event });
        break;
      default:
        chunks.push({ type: 'data-run', data: event });
        if (event.type === 'run-end' && event.parentCallId === null) {
          this.finished = true;
          if (isAbort(event.error)) {
            chunks.push(...this.cancelled(event.error?.message));
            break;
          }
          chunks.push(...this.closeParts());
          if (!event.success) chunks.push({ type: 'error', errorText: event.error?.message ?? 'The run failed' });
          chunks.push({
            type: 'finish',
            finishReason: event.success ? 'stop' : 'error',
            messageMetadata: { runId: event.runId, name: this.name, success: event.success, durationMs: event.durationMs },
          });
        }
    }
    return chunks;
  }

  /** The events ended: close what is open and finish the message, if the root run did not. */
  end(): RunUIMessageChunk[] {
    if (this.finished) return [];
    // Nodes still open: the run was cut off, not finished; it ends as failed, visibly.
    const cut = this.endNodes({ name: 'Error', message: 'The run ended before its nodes did', code: 'RUN_CUT_OFF' });
    if (this.finished) return cut;
    this.finished = true;
    const chunks: RunUIMessageChunk[] = this.started ? [] : [{ type: 'start', ...(this.messageId === undefined ? {} : { messageId: this.messageId }) }];
    return [...chunks, ...this.closeParts(), { type: 'finish', finishReason: 'stop' }];
  }

  /** The stream was aborted: end every open node as cancelled and say so, unless the message already finished. */
  abort(reason: unknown): RunUIMessageChunk[] {
    if (this.finished) return [];
    const text = reasonText(reason instanceof Error ? exposedError(reason, this.exposeError).message : reason);
    const ended = this.endNodes({ name: 'AbortError', message: text ?? CANCELLED });
    if (this.finished) return ended;
    this.finished = true;
    const chunks: RunUIMessageChunk[] = this.started ? [] : [{ type: 'start', ...(this.messageId === undefined ? {} : { messageId: this.messageId }) }];
    return [...chunks, ...ended, ...this.cancelled(text)];
  }

  /** The chunks of every open node's end, as if the run had said them (`data-run` parts, text parts closed). */
  private endNodes(error: SerializedError): RunUIMessageChunk[] {
    return this.nodes.end(error).flatMap((event) => this.write(event));
  }

  /**
   * A cancelled run's last chunks: its text parts closed as `cancelled`, an `abort` chunk (what the `ai`
   * package's server-side `onFinish` reads as `isAborted`), then an `error` chunk, because that is the
   * only end the `ai` package's chat shows as not finished: it ignores `abort` and ends with status
   * `ready`, as for a finished message.
   */
  private cancelled(reason: string | undefined): RunUIMessageChunk[] {
    return [...this.closeParts('cancelled'), reason === undefined ? { type: 'abort' } : { type: 'abort', reason }, { type: 'error', errorText: reason ?? CANCELLED }];
  }

  private closeParts(status: 'failed' | 'cancelled' = 'failed'): RunUIMessageChunk[] {
    const chunks = [...this.open.values()].map((start): RunUIMessageChunk => ({ type: 'text-end', id: start.callId, providerMetadata: textMetadata(start, status) }));
    this.open.clear();
    return chunks;
  }
}

const CANCELLED = 'The run was cancelled';

const isAbort = (error: SerializedError | undefined): boolean => error?.name === 'AbortError';

/** An abort's reason as the `abort` chunk's text: an error's message, a string as it is. */
function reasonText(reason: unknown): string | undefined {
  if (reason === undefined) return undefined;
  if (reason instanceof Error) return reason.message;
  if (typeof reason === 'string') return reason;
  try {
    return JSON.stringify(reason) ?? String(reason);
  } catch {
    return String(reason);
  }
}

function textMetadata(start: RunEventOf<'call-start'>, status: RunTextPartMetadata['status'], durationMs?: number): ProviderMetadata {
  return { rxagents: { callId: start.callId, agentId: start.agentId, parentCallId: start.parentCallId, status, ...(durationMs === undefined ? {} : { durationMs }) } };
}
