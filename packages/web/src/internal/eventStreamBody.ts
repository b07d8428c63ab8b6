import { repeat, type SchedulerLike, type Subscription } from 'rxjs';
import { delayTimer, scheduleDelay } from '@rxagents/core';
import { ViewerStalledError } from '../errors/ViewerStalledError';
import type { ExposeError } from '../redactError';
import { exposedError } from './exposeErrors';

/** One value ready for the wire: its `id:` and `event:` lines and its JSON. */
export interface Frame {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
}

/** What feeds an event stream body: chunks of encoded frames, `undefined` at the end; a rejection becomes an `error` frame. */
export interface FrameSource {
  readonly take: () => Promise<Uint8Array | undefined>;
  /** Whether something waits that the reader has not taken yet (what makes a reader that does not read a stalled one). */
  readonly waiting: () => boolean;
  readonly cancel: () => void;
  /** What a browser receives of the error of a rejected `take` (default: `redactError`). */
  readonly exposeError?: ExposeError;
  /** Given, once, the function that ends the body at once with an `error` frame (for a source that is let go of). */
  readonly onInterrupt?: (interrupt: (error: unknown) => void) => void;
}

/** The clocks of an event stream body. */
export interface EventStreamTiming {
  /** Milliseconds between `: ping` comments while the reader waits for data; `Infinity` for none. */
  readonly heartbeatMs: number;
  /** Milliseconds a reader may go without asking for more while data waits for it; `Infinity` for ever. */
  readonly stallTimeoutMs: number;
  readonly scheduler: SchedulerLike;
}

/** The SSE encoding of one frame. `event` and `id` never hold a line break (checked where they are made). */
export function encodeFrame(frame: Frame): string {
  return `${frame.id === undefined ? '' : `id: ${frame.id}\n`}event: ${frame.event}\ndata: ${frame.data}\n\n`;
}

/** The `event: error` frame for an error: what `expose` (default: `redactError`) makes of it, as JSON. */
export function errorFrame(error: unknown, expose?: ExposeError): Frame {
  return { id: undefined, event: 'error', data: JSON.stringify(exposedError(error, expose)) };
}

/** What one `take` of the source gave. */
type Taken = { readonly chunk: Uint8Array | undefined } | { readonly error: unknown };

/**
 * A `text/event-stream` body reading `source` at the reader's pace, with a `: ping` comment every
 * `heartbeatMs` (on `scheduler`) while the reader waits for data. Cancelling the body, or aborting
 * `signal`, cancels the source (an aborted signal closes the body).
 *
 * A reader that asks for nothing (no `pull`) for `stallTimeoutMs`, counted from the body's creation or
 * from the last chunk handed to it, while data waits for it (in the source, or handed over and still
 * unread), is cut off: an `error` frame with a {@link ViewerStalledError}, the body closes and the
 * source is cancelled. When nothing waits at that moment, the body takes the source's next chunk ahead
 * of the reader and gives the reader `stallTimeoutMs` more from its arrival. So a reader that asks at
 * least every `stallTimeoutMs` is never cut off, and one that stopped is cut off at most
 * `2 × stallTimeoutMs` after its last read once data waits for it.
 */
export function eventStreamBody(source: FrameSource, timing: EventStreamTiming, signal?: AbortSignal): ReadableStream<Uint8Array> {
  const { heartbeatMs, stallTimeoutMs, scheduler } = timing;
  const encoder = new TextEncoder();
  const ping = encoder.encode(': ping\n\n');
  let heartbeat: Subscription | undefined;
  let stall: Subscription | undefined;
  /** Whether the stall check is scheduled. */
  let armed = false;
  /** Whether a `pull` is under way: the reader asked and waits, so it is not stalled. */
  let pulling = false;
  /** When the reader last got a chunk (or the body was made, or data arrived ahead of it), on `scheduler`. */
  let since = scheduler.now();
  /** Whether the last chunk handed over went to the queue rather than to a waiting read (so it is unread). */
  let unread = false;
  /** A take started before the reader asked for it (see the remarks), and its chunk once it came. */
  let ahead: Promise<Taken> | undefined;
  let aheadChunk = false;
  let done = false;
  let stopListening: (() => void) | undefined;
  const finish = (): void => {
    done = true;
    heartbeat?.unsubscribe();
    stall?.unsubscribe();
    stopListening?.();
  };
  const takeNext = (): Promise<Taken> => source.take().then((chunk): Taken => ({ chunk }), (error: unknown): Taken => ({ error }));
  const endWith = (controller: ReadableStreamDefaultController<Uint8Array>, error: unknown): void => {
    if (done) return;
    finish();
    source.cancel();
    controller.enqueue(encoder.encode(encodeFrame(errorFrame(error, source.exposeError))));
    controller.close();
  };
  /** Hands what the source gave to the reader: a chunk, the end, or an error frame. */
  const deliver = (controller: ReadableStreamDefaultController<Uint8Array>, taken: Taken): void => {
    if ('error' in taken) endWith(controller, taken.error);
    else if (taken.chunk === undefined) {
      finish();
      controller.close();
    } else {
      controller.enqueue(taken.chunk);
      unread = controller.desiredSize !== null && controller.desiredSize < 0;
    }
  };
  const arm = (controller: ReadableStreamDefaultController<Uint8Array>, wait: number): void => {
    armed = true;
    stall = scheduleDelay(scheduler, wait, () => {
      armed = false;
      checkForStall(controller);
    });
  };
  // One timer per body, firing every `stallTimeoutMs` at most (never one per chunk).
  const checkForStall = (controller: ReadableStreamDefaultController<Uint8Array>): void => {
    if (done) return;
    if (pulling) return arm(controller, stallTimeoutMs);
    const idle = scheduler.now() - since;
    if (idle < stallTimeoutMs) return arm(controller, stallTimeoutMs - idle);
    const queued = unread && controller.desiredSize !== null && controller.desiredSize < 0;
    if (aheadChunk || queued || source.waiting()) return endWith(controller, new ViewerStalledError(stallTimeoutMs));
    if (ahead !== undefined) return;
    // Nothing waits: take the next chunk ahead of the reader; the clock starts again when it comes.
    const mine = takeNext();
    ahead = mine;
    void mine.then((taken) => {
      if (done || ahead !== mine) return;
      if ('chunk' in taken && taken.chunk !== undefined) {
        aheadChunk = true;
        since = scheduler.now();
        if (!armed) arm(controller, stallTimeoutMs);
      } else {
        // The end or an error need no reader to go out.
        ahead = undefined;
        deliver(controller, taken);
      }
    });
  };
  return new ReadableStream<Uint8Array>(
    {
      start: (controller) => {
        source.onInterrupt?.((error) => endWith(controller, error));
        if (signal !== undefined) {
          const abort = (): void => {
            if (done) return;
            finish();
            source.cancel();
            controller.close();
          };
          if (signal.aborted) {
            abort();
            return;
          }
          signal.addEventListener('abort', abort, { once: true });
          stopListening = () => signal.removeEventListener('abort', abort);
        }
        arm(controller, stallTimeoutMs);
      },
      pull: async (controller) => {
        pulling = true;
        unread = false;
        // The heartbeat starts with the first read, so a body nobody reads holds no timer.
        heartbeat ??= delayTimer(heartbeatMs, scheduler)
          .pipe(repeat())
          .subscribe(() => {
            // Only while nothing waits unread: a reader that stopped reading needs no keep-alive.
            if (!done && controller.desiredSize !== null && controller.desiredSize >= 0) controller.enqueue(ping);
          });
        const next = ahead ?? takeNext();
        ahead = undefined;
        aheadChunk = false;
        const taken = await next;
        if (done) return;
        deliver(controller, taken);
        pulling = false;
        since = scheduler.now();
        if (!done && !armed) arm(controller, stallTimeoutMs);
      },
      cancel: () => {
        finish();
        source.cancel();
      },
    },
    { highWaterMark: 0 },
  );
}
