import { repeat, type SchedulerLike, type Subscription } from 'rxjs';
import { delayTimer } from '@rxagents/core';
import type { ExposeError } from '../redactError';
import { exposedError } from './exposeErrors';

/** One value ready for the wire: its `id:` and `event:` lines and its JSON. */
export interface Frame {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
}

/** What feeds an event stream body: batches of encoded frames, `undefined` at the end; a rejection becomes an `error` frame. */
export interface FrameSource {
  readonly take: () => Promise<string | undefined>;
  readonly cancel: () => void;
  /** What a browser receives of the error of a rejected `take` (default: `redactError`). */
  readonly exposeError?: ExposeError;
}

/** The SSE encoding of one frame. `event` and `id` never hold a line break (checked where they are made). */
export function encodeFrame(frame: Frame): string {
  return `${frame.id === undefined ? '' : `id: ${frame.id}\n`}event: ${frame.event}\ndata: ${frame.data}\n\n`;
}

/** The `event: error` frame for an error: what `expose` (default: `redactError`) makes of it, as JSON. */
export function errorFrame(error: unknown, expose?: ExposeError): Frame {
  return { id: undefined, event: 'error', data: JSON.stringify(exposedError(error, expose)) };
}

/**
 * A `text/event-stream` body reading `source` at the reader's pace, with a `: ping` comment every
 * `heartbeatMs` (on `scheduler`) while the reader waits for data. Cancelling the body, or aborting
 * `signal`, cancels the source (an aborted signal closes the body).
 */
export function eventStreamBody(source: FrameSource, heartbeatMs: number, scheduler: SchedulerLike, signal?: AbortSignal): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const ping = encoder.encode(': ping\n\n');
  let heartbeat: Subscription | undefined;
  let done = false;
  let stopListening: (() => void) | undefined;
  const finish = (): void => {
    done = true;
    heartbeat?.unsubscribe();
    stopListening?.();
  };
  return new ReadableStream<Uint8Array>(
    {
      start: (controller) => {
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
      },
      pull: async (controller) => {
        // The heartbeat starts with the first read, so a body nobody reads holds no timer.
        heartbeat ??= delayTimer(heartbeatMs, scheduler)
          .pipe(repeat())
          .subscribe(() => {
            // Only while nothing waits unread: a reader that stopped reading needs no keep-alive.
            if (!done && controller.desiredSize !== null && controller.desiredSize >= 0) controller.enqueue(ping);
          });
        let frames: string | undefined;
        try {
          frames = await source.take();
        } catch (error) {
          if (done) return;
          finish();
          source.cancel();
          controller.enqueue(encoder.encode(encodeFrame(errorFrame(error, source.exposeError))));
          controller.close();
          return;
        }
        if (done) return;
        if (frames === undefined) {
          finish();
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(frames));
      },
      cancel: () => {
        finish();
        source.cancel();
      },
    },
    { highWaterMark: 0 },
  );
}
