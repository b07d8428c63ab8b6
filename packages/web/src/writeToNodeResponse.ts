import { asyncScheduler, type SchedulerLike, type Subscription } from 'rxjs';
import * as z from 'zod';
import { ConfigError, configRules, parseConfig, scheduleDelay } from '@rxagents/core';

/**
 * What {@link writeToNodeResponse} needs of Node's `http.ServerResponse` (which is one): described here so
 * that this package imports nothing from Node.
 *
 * @example
 * ```ts
 * import type { ServerResponse } from 'node:http';
 * import type { NodeServerResponse } from '@rxagents/web';
 *
 * const accepts = (res: ServerResponse): NodeServerResponse => res;
 * console.log(typeof accepts); // function
 * ```
 */
export interface NodeServerResponse {
  writeHead(statusCode: number, headers: string[]): unknown;
  write(chunk: Uint8Array): boolean;
  end(): unknown;
  destroy(error?: Error): unknown;
  readonly destroyed: boolean;
  once(event: 'drain' | 'close' | 'finish', listener: () => void): unknown;
  off(event: 'drain' | 'close' | 'finish', listener: () => void): unknown;
}

/**
 * Options of {@link writeToNodeResponse}.
 *
 * @example
 * ```ts
 * import type { WriteToNodeResponseOptions } from '@rxagents/web';
 *
 * const options: WriteToNodeResponseOptions = { stallTimeoutMs: 10_000 };
 * console.log(options.stallTimeoutMs); // 10000
 * ```
 */
export interface WriteToNodeResponseOptions {
  /**
   * How long the connection may accept nothing (Node's buffer for it full, no `'drain'`), in
   * milliseconds, before it is destroyed and the body cancelled. Default 30,000; `Infinity` waits for ever.
   */
  readonly stallTimeoutMs?: number;
  /** The clock of `stallTimeoutMs`. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

const WriteToNodeResponseOptionsSchema = z.strictObject({
  stallTimeoutMs: configRules.timeoutMs().default(30_000),
  scheduler: configRules.scheduler().default(asyncScheduler),
});

/** The response's headers as Node's flat list of names and values, every `set-cookie` its own. */
function headerList(headers: Headers): string[] {
  const list: string[] = [];
  headers.forEach((value, name) => {
    if (name !== 'set-cookie') list.push(name, value);
  });
  for (const cookie of headers.getSetCookie()) list.push('set-cookie', cookie);
  return list;
}

/**
 * Writes a Web `Response` to Node's `http.ServerResponse` at the pace of the connection: how a handler
 * built on `Request`/`Response` (every function of this package) is served from Node's `http`.
 *
 * @remarks
 * The status and headers go first, then the body chunk by chunk as it gives them, so an event stream
 * reaches the browser at once. When Node's buffer for the connection is full (`write` returns `false`),
 * nothing more is read from the body until `'drain'`: a client that reads slowly holds the body back
 * (a paced run waits), and the server never holds more than Node's buffer for it. A connection that
 * accepts nothing for `stallTimeoutMs` is destroyed. When the connection closes (the client went away,
 * or it was destroyed) the body is cancelled, which cancels what feeds it (a run's agents are aborted).
 * A body that errors destroys the connection. Resolves once the response is over, either way; never
 * rejects.
 *
 * @param response - What to send.
 * @param res - Node's response for the request (`http.ServerResponse`, or anything like it).
 * @param options - The stall timeout and its clock.
 * @returns A promise resolved when the response finished or the connection closed.
 * @throws `ConfigError` for a bad option, or when `response` is not a `Response`.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { from } from 'rxjs';
 * import { defineAgent, invoke$, observeRun } from '@rxagents/core';
 * import { toEventStreamResponse, writeToNodeResponse } from '@rxagents/web';
 *
 * const writer = defineAgent('writer', () => from(['Once ', 'upon ', 'a time.']));
 * const server = createServer((req, res) => {
 *   const closed = new AbortController();
 *   res.once('close', () => closed.abort());
 *   const response = toEventStreamResponse((pace) => observeRun('story', 'go', (run) => invoke$(writer, 'go', { run }), { pace }), { signal: closed.signal });
 *   void writeToNodeResponse(response, res);
 * });
 * server.listen(0, '127.0.0.1', () => server.close());
 * ```
 */
export function writeToNodeResponse(response: Response, res: NodeServerResponse, options: WriteToNodeResponseOptions = {}): Promise<void> {
  const { stallTimeoutMs, scheduler } = parseConfig(WriteToNodeResponseOptionsSchema, options, 'writeToNodeResponse options');
  if (!(response instanceof Response)) throw new ConfigError('writeToNodeResponse', [{ path: 'response', rule: 'must be a Response', received: response }]);
  return new Promise<void>((resolve) => {
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    let over = false;
    let stall: Subscription | undefined;
    /** Set while the body waits for room: called on `'drain'`, or when the connection is over. */
    let drained: (() => void) | undefined;
    const stop = (): void => {
      if (over) return;
      over = true;
      res.off('close', stop);
      res.off('finish', stop);
      drained?.();
      // The connection is over: whatever still feeds the body stops (a no-op once it ended).
      void reader?.cancel().catch(() => undefined);
      resolve();
    };
    res.once('close', stop);
    res.once('finish', stop);
    if (res.destroyed) return stop();
    res.writeHead(response.status, headerList(response.headers));
    if (response.body === null) {
      res.end();
      return;
    }
    const body = response.body.getReader();
    reader = body;
    /** Resolves on `'drain'` or when the connection is over; destroys a connection that stays full for `stallTimeoutMs`. */
    const room = (): Promise<void> =>
      new Promise<void>((ready) => {
        drained = () => {
          if (drained === undefined) return;
          res.off('drain', drained);
          drained = undefined;
          stall?.unsubscribe();
          ready();
        };
        res.once('drain', drained);
        stall = scheduleDelay(scheduler, stallTimeoutMs, () => res.destroy());
      });
    void (async () => {
      try {
        for (;;) {
          const { done, value } = await body.read();
          if (over) return;
          if (done) {
            res.end();
            return;
          }
          if (!res.write(value) && !over) await room();
          if (over) return;
        }
      } catch {
        // The body failed: the client must not take what it got for the whole response.
        if (!over) res.destroy();
      }
    })();
  });
}
