import { Observable, type SchedulerLike, type Subscription } from 'rxjs';
import { createParser, type EventSourceMessage, type ParseError } from 'eventsource-parser';
import { ConfigError, delayTimer, isSerializedError, OpenRunNodes, safeParseRunEvent, type RunEvent } from '@rxagents/core';
import { EventStreamError } from './errors/EventStreamError';
import { RemoteRunError } from './errors/RemoteRunError';
import type { EventStreamRetry } from './EventStreamRetry';
import type { EventStreamStatus } from './EventStreamStatus';
import { checkEventStreamOptions } from './internal/checkEventStreamOptions';
import { badFrame, RESTARTING, resendable, safeJson, sequence } from './internal/eventStreamFrames';
import { Reconnection } from './internal/Reconnection';

/** Anything with zod's `safeParse`: the schema every value of the stream must match. */
interface ValueSchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

/**
 * Options of {@link fromEventStream}.
 *
 * @example
 * ```ts
 * import type { FromEventStreamOptions } from '@rxagents/web/client';
 *
 * const options: FromEventStreamOptions = { retry: { delayMs: 250, maxElapsedMs: 60_000 }, onStatus: (status) => console.log(status.state) };
 * console.log(options.retry?.delayMs); // 250
 * ```
 */
export interface FromEventStreamOptions<T = RunEvent> {
  /** Aborting it stops reading; the Observable errors with the signal's reason. A `Request` input's own signal does the same. */
  readonly signal?: AbortSignal;
  /** The `fetch` to use (for credentials, headers or tests). Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
  /** Reconnection after a dropped connection: backoff, jitter and budget. Default: 1 s doubling up to 5 s, for 5 minutes. */
  readonly retry?: EventStreamRetry;
  /**
   * Told where the connection stands each time that changes (`connected`, `reconnecting` with the attempt
   * and the delay, `gave-up`), for a page to show. Pass a Subject's `next` to have it as an Observable.
   * A throw from it errors the Observable.
   */
  readonly onStatus?: (status: EventStreamStatus) => void;
  /** The schema every value must match. Default: the rules of `RunEventSchema` from `@rxagents/core` (checked by `safeParseRunEvent`, without zod). */
  readonly schema?: ValueSchema<T>;
  /** The clock of the reconnection delays and budget. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /**
   * The most characters a frame may hold while it arrives (a line not yet ended, and an event's data
   * lines before the blank line that ends it). A longer frame is an `EVENT_STREAM_BAD_FRAME` error, so a
   * server that never ends a line cannot grow the page's memory without bound. Default 16,777,216.
   */
  readonly maxFrameLength?: number;
}

type Input = string | URL | Request | Response;

const isRootRunEnd = (value: unknown): boolean => {
  const event = value as { type?: unknown; parentCallId?: unknown } | null;
  return typeof event === 'object' && event !== null && event.type === 'run-end' && event.parentCallId === null;
};
const isRunEventLike = (value: unknown): boolean => typeof (value as { runId?: unknown } | null)?.runId === 'string';
/** Whether `value` has what {@link OpenRunNodes} reads of a run event. */
const isTrackable = (value: unknown): value is RunEvent => {
  const event = value as { type?: unknown; callId?: unknown; at?: unknown } | null;
  return isRunEventLike(value) && typeof event?.type === 'string' && typeof event.callId === 'string' && typeof event.at === 'number';
};

/**
 * Reads a Server-Sent Events stream of a run (from {@link toEventStreamResponse} or a run registry) as
 * an Observable of checked `RunEvent`s: the browser end of `@rxagents/web`.
 *
 * @remarks
 * Cold: each subscription `fetch`es `input` (a URL, a `Request`, or a `Response` you already have) and
 * parses the frames with `eventsource-parser`. Every value is checked against `schema` (default
 * `RunEventSchema`'s rules, by `safeParseRunEvent`, so a page bundle carries no zod): a frame that is not JSON or does not match errors the Observable with an
 * {@link EventStreamError} `EVENT_STREAM_BAD_FRAME` (nothing is silently dropped). An `event: error`
 * frame errors it with a {@link RemoteRunError} carrying the server's `name`, `message` and `code`;
 * before that error, every node of the run still open (started and not ended in what was read) ends,
 * innermost first, with the server's error: a `call-error` per agent call, a `run-end` with `success:
 * false` per run, at the latest event's `at`. A `runView` of the stream then shows no node running
 * (`cancelled` when the server's error is an `AbortError`, else `failed`). No other error (a dropped
 * connection, a bad frame, an abort of your own) ends a node: what happened to the run is then unknown.
 * A non-2xx answer, or one that is not `text/event-stream`, is an `EVENT_STREAM_STATUS` error. A frame
 * longer than `maxFrameLength` characters is an `EVENT_STREAM_BAD_FRAME` error as soon as it is.
 *
 * The Observable completes when the stream ends after the root run's `run-end` (or, for values that are
 * not run events, whenever the stream ends). A stream that breaks or ends before that was dropped (so
 * was a fetch that failed, and a 502, 503 or 504 answer, as a proxy before a restarting server gives):
 * it reconnects with the `Last-Event-ID` header set to the last id seen, so a server that keeps the run
 * (a run registry) resumes with no gap and no duplicate. The reconnections back off (see
 * {@link EventStreamRetry}: by default 1 s, 2 s, 4 s, then every 5 s, each less up to half at random)
 * and go on for `retry.maxElapsedMs` after the drop (default 5 minutes: a server's restart is carried
 * through), or `retry.maxAttempts` reconnections; then the Observable errors with
 * `EVENT_STREAM_DROPPED`. An event resets them. `onStatus` is told each change (`connected`,
 * `reconnecting`, `gave-up`: see {@link EventStreamStatus}). A server that answers
 * a reconnection with another run (one that keeps nothing, such as `toEventStreamResponse`, starts a
 * new run per request) cannot resume the run either: the first event of that other run is an
 * `EVENT_STREAM_DROPPED` error, never spliced onto the events of the first. Nor can a stream whose last
 * event id cannot be sent back as a header (a character above U+00FF, surrounding spaces): it errors with
 * `EVENT_STREAM_DROPPED` when it drops, at once. A `Response` input cannot
 * be fetched again, so it is never resumed, and it can be read once: a subscription to a `Response` that
 * was already read (by another subscription, say) errors with a `ConfigError` naming `input`.
 * Unsubscribing aborts the fetch.
 *
 * @param input - Where the events are: a URL, a `Request` or a `Response`.
 * @param options - Abort signal, `fetch`, reconnection and its status, schema and clock.
 * @returns The run's events.
 * @throws `ConfigError` for a bad option.
 *
 * @example
 * ```ts
 * import { from } from 'rxjs';
 * import { defineAgent, invoke$, observeRun } from '@rxagents/core';
 * import { toEventStreamResponse } from '@rxagents/web';
 * import { fromEventStream } from '@rxagents/web/client';
 *
 * const writer = defineAgent('writer', () => from(['Hello ', 'world']));
 * const response = toEventStreamResponse(observeRun('hello', 'hi', (run) => invoke$(writer, 'hi', { run })));
 * // In a browser: fromEventStream('/api/story?q=hi')
 * fromEventStream(response).subscribe((event) => {
 *   if (event.type === 'text-delta') console.log(event.delta); // Hello, then world
 * });
 * ```
 */
export function fromEventStream<T = RunEvent>(input: Input, options: FromEventStreamOptions<T> = {}): Observable<T> {
  // Checked by hand, and the events by `safeParseRunEvent`, with the same rules as the zod schemas: a page does not bring zod.
  const parsed = checkEventStreamOptions(options);
  const schema = (parsed.schema ?? { safeParse: safeParseRunEvent }) as ValueSchema<T>;
  const { signal, retry, onStatus, scheduler, maxFrameLength } = parsed;
  if (!(typeof input === 'string' || input instanceof URL || input instanceof Request || input instanceof Response)) {
    throw new ConfigError('fromEventStream', [{ path: 'input', rule: 'must be a URL, a Request or a Response', received: input }]);
  }
  return new Observable<T>((subscriber) => {
    const doFetch = parsed.fetch ?? globalThis.fetch.bind(globalThis);
    const controller = new AbortController();
    let lastId: string | undefined;
    /** `lastId` as a number when it is a sequence number (as this package's servers send), else NaN. */
    let lastSeq = NaN;
    const reconnection = new Reconnection(retry, scheduler);
    let finished = false;
    let sawRunEvent = false;
    /** The nodes of the run read so far that have not ended: an error frame ends them. */
    const openNodes = new OpenRunNodes();
    /** The run the stream carries (the `runId` of its first run event): a reconnection must go on with it. */
    let runId: string | undefined;
    let reconnected = false;
    let wait: Subscription | undefined;
    let body: ReadableStreamDefaultReader<string> | undefined;
    const stop = (): void => {
      finished = true;
      controller.abort();
      // A Response given as input is not tied to the abort controller: cancel its body too.
      void body?.cancel().catch(() => undefined);
    };
    const fail = (error: unknown): void => {
      stop();
      subscriber.error(error);
    };
    /** Tells `onStatus`; says whether reading goes on (a throw from it is the Observable's error). */
    const tell = (status: EventStreamStatus): boolean => {
      try {
        onStatus?.(status);
      } catch (error) {
        fail(error);
        return false;
      }
      return !finished;
    };
    // The option's signal and a Request's own signal both stop reading.
    const signals = [signal, input instanceof Request ? input.signal : undefined].filter((each) => each !== undefined);
    const aborted = signals.find((each) => each.aborted);
    if (aborted !== undefined) {
      subscriber.error(aborted.reason);
      return;
    }
    const onAbort = (event: Event): void => fail((event.target as AbortSignal).reason);
    for (const each of signals) each.addEventListener('abort', onAbort, { once: true });

    const open = async (): Promise<Response> => {
      if (input instanceof Response) return input;
      const headers = new Headers(input instanceof Request ? input.headers : undefined);
      headers.set('accept', 'text/event-stream');
      if (lastId !== undefined) headers.set('last-event-id', lastId);
      // A Request's body can be read once: each connection sends a copy, so a reconnection (or another
      // subscription) sends the body again instead of failing on a used Request.
      return input instanceof Request ? doFetch(new Request(input.clone(), { headers, signal: controller.signal })) : doFetch(input, { headers, signal: controller.signal });
    };

    const dropped = (cause: unknown): void => {
      if (finished) return;
      if (lastId !== undefined && !resendable(lastId)) {
        // Every reconnection would fail the same way before it is sent: say why now, not after the retries.
        fail(
          new EventStreamError(
            'EVENT_STREAM_DROPPED',
            `The event stream was dropped and cannot be resumed: the server's last event id (${JSON.stringify(lastId.slice(0, 40))}) cannot be sent back in a Last-Event-ID header`,
            { lastEventId: lastId, attempts: reconnection.attempts },
            cause,
          ),
        );
        return;
      }
      const planned = input instanceof Response ? undefined : reconnection.next();
      if (planned === undefined) {
        const { attempts, elapsedMs } = reconnection;
        const tried = attempts === 0 ? '' : ` (${attempts} reconnection${attempts === 1 ? '' : 's'} tried over ${Math.round(elapsedMs / 1000)} s)`;
        const error = new EventStreamError('EVENT_STREAM_DROPPED', `The event stream was dropped${tried}`, { lastEventId: lastId, attempts, elapsedMs }, cause);
        if (tell({ state: 'gave-up', attempts, elapsedMs, error })) fail(error);
        return;
      }
      reconnected = true;
      if (!tell({ state: 'reconnecting', ...planned, cause })) return;
      wait = delayTimer(planned.delayMs, scheduler).subscribe(() => void connect());
    };

    const onEvent = (message: EventSourceMessage): void => {
      if (finished) return;
      if (message.event === 'error') {
        const remote = safeJson(message.data);
        if (!isSerializedError(remote)) return fail(badFrame(message, 'an error frame must hold { name, message }'));
        // The run is over for this reader: what it showed running ends, so no view shows it running forever.
        for (const end of openNodes.end(remote)) {
          subscriber.next(end as T);
          if (finished) return;
        }
        fail(new RemoteRunError(remote));
        return;
      }
      const seq = message.id === undefined ? NaN : sequence(message.id);
      if (seq <= lastSeq) {
        // A repeat is skipped, unless it belongs to another run: the server started over.
        if (reconnected) failOnOtherRun(safeJson(message.data));
        return;
      }
      const json = safeJson(message.data);
      if (json === undefined) return fail(badFrame(message, 'its data is not JSON'));
      const checked = schema.safeParse(json);
      if (!checked.success) {
        const issue = checked.error.issues[0];
        return fail(badFrame(message, `it does not match the schema${issue === undefined ? '' : ` (${issue.path.join('.') || 'value'}: ${issue.message})`}`));
      }
      if (message.id !== undefined) {
        lastId = message.id;
        lastSeq = seq;
      }
      if (reconnected && failOnOtherRun(checked.data)) return;
      reconnection.reset();
      if (isRunEventLike(checked.data)) {
        sawRunEvent = true;
        runId ??= (checked.data as { runId: string }).runId;
        if (isTrackable(checked.data)) openNodes.track(checked.data);
      }
      subscriber.next(checked.data);
      if (isRootRunEnd(checked.data)) {
        stop();
        subscriber.complete();
      }
    };

    /** Fails when a reconnection was answered with an event of another run than the one read so far; says whether it did. */
    const failOnOtherRun = (value: unknown): boolean => {
      if (runId === undefined || !isRunEventLike(value) || (value as { runId: string }).runId === runId) return false;
      const other = (value as { runId: string }).runId;
      fail(
        new EventStreamError(
          'EVENT_STREAM_DROPPED',
          `The event stream was dropped and the server answered the reconnection with a new run (${JSON.stringify(other.slice(0, 40))}, not ${JSON.stringify(runId)}): it did not keep the run, so it cannot be resumed`,
          { lastEventId: lastId, attempts: reconnection.attempts, runId, otherRunId: other },
        ),
      );
      return true;
    };

    const connect = async (): Promise<void> => {
      let response: Response;
      try {
        response = await open();
      } catch (error) {
        dropped(error);
        return;
      }
      if (finished) return;
      const type = response.headers.get('content-type') ?? '';
      if (RESTARTING.has(response.status)) {
        // A proxy whose server is down or restarting: the run may well be there again in a moment.
        void response.body?.cancel().catch(() => undefined);
        dropped(new EventStreamError('EVENT_STREAM_STATUS', `The event stream answered ${response.status}`, { status: response.status }));
        return;
      }
      if (!response.ok || !type.startsWith('text/event-stream') || response.body === null) {
        const reason = response.ok ? `is not an event stream (content-type ${type || 'missing'})` : `answered ${response.status}`;
        void response.body?.cancel().catch(() => undefined);
        fail(new EventStreamError('EVENT_STREAM_STATUS', `The event stream ${reason}`, { status: response.status }));
        return;
      }
      const onError = (error: ParseError): void => {
        if (error.type === 'max-buffer-size-exceeded') {
          fail(new EventStreamError('EVENT_STREAM_BAD_FRAME', `A bad event stream frame: it is longer than maxFrameLength (${maxFrameLength} characters)`, { maxFrameLength }));
        }
      };
      if (response.bodyUsed || response.body.locked) {
        // A Response can be read once: another subscription (or the caller) already read this one.
        fail(
          input instanceof Response
            ? new ConfigError('fromEventStream', [{ path: 'input', rule: 'must be a Response whose body was not read yet (subscribe once, or pass a URL or a Request)', received: 'a Response already read' }])
            : new EventStreamError('EVENT_STREAM_STATUS', 'The event stream answered with a body that was already read', { status: response.status }),
        );
        return;
      }
      if (!tell({ state: 'connected', attempt: reconnection.attempts })) return;
      const parser = createParser({ onEvent, onError, maxBufferSize: maxFrameLength });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      body = reader;
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (finished) return;
          if (done) break;
          parser.feed(value);
        }
      } catch (error) {
        dropped(error);
        return;
      }
      if (finished) return;
      if (sawRunEvent) dropped(new Error('The stream ended before the run did'));
      else {
        finished = true;
        subscriber.complete();
      }
    };

    void connect();
    return () => {
      stop();
      wait?.unsubscribe();
      for (const each of signals) each.removeEventListener('abort', onAbort);
    };
  });
}
