import * as z from 'zod';
import { configRules, parseConfig } from '@rxagents/core';
import { isHeadersInit } from './internal/isHeadersInit';
import { eventStreamFrom, eventStreamOptionShape, type EventStreamSource, type ToEventStreamOptions } from './toEventStream';

/**
 * Options of {@link toEventStreamResponse}: those of {@link toEventStream}, an abort signal and extra headers.
 *
 * @example
 * ```ts
 * import type { ToEventStreamResponseOptions } from '@rxagents/web';
 *
 * const options: ToEventStreamResponseOptions<unknown> = { headers: { 'access-control-allow-origin': '*' }, delivery: 'conflate' };
 * console.log(options.delivery); // conflate
 * ```
 */
export interface ToEventStreamResponseOptions<T> extends ToEventStreamOptions<T> {
  /** Aborting it cancels the run and closes the body: pass `request.signal`. */
  readonly signal?: AbortSignal;
  /** Headers added to (or replacing) the event stream's own. */
  readonly headers?: HeadersInit;
}

const ToEventStreamResponseOptionsSchema = z.strictObject({
  ...eventStreamOptionShape,
  signal: configRules.abortSignal().optional(),
  headers: z.custom<HeadersInit>(isHeadersInit, { error: 'must be a Headers object, a record or a list of pairs, of valid header names and values' }).optional(),
});

/** The headers of every event stream response: the type, and no caching or proxy buffering. */
export const eventStreamHeaders: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/**
 * A `Response` streaming an Observable (typically a run's events) as Server-Sent Events: return it from
 * any handler built on Web APIs (Next.js route handlers, Hono, Deno, Bun, workers; Node's `http` with a
 * few lines, see the guide).
 *
 * @remarks
 * The body is {@link toEventStream}'s. The headers are `content-type: text/event-stream;
 * charset=utf-8`, `cache-control: no-cache, no-transform` and `x-accel-buffering: no` (so nginx does not
 * hold the events back), plus yours. Pass `signal: request.signal`: when the client goes away the run is
 * cancelled and every agent's `AbortSignal` fires.
 *
 * @param source - The values, or a function starting them with the reader's pacing function.
 * @param options - Those of {@link toEventStream}, plus `signal` and `headers`.
 * @returns A `200` response with the event stream.
 * @throws `ConfigError` for a bad option.
 *
 * @example
 * ```ts
 * import { from } from 'rxjs';
 * import { defineAgent, invoke$, observeRun } from '@rxagents/core';
 * import { toEventStreamResponse } from '@rxagents/web';
 *
 * const writer = defineAgent('writer', () => from(['Hello ', 'world']));
 *
 * // A route handler (Next.js `app/api/story/route.ts`, Hono, Deno.serve, ...).
 * async function GET(request: Request): Promise<Response> {
 *   const input = new URL(request.url).searchParams.get('q') ?? 'hi';
 *   return toEventStreamResponse((pace) => observeRun('story', input, (run) => invoke$(writer, input, { run }), { pace }), {
 *     signal: request.signal,
 *   });
 * }
 *
 * const response = await GET(new Request('http://localhost/api/story?q=hello'));
 * console.log(response.headers.get('content-type')); // text/event-stream; charset=utf-8
 * console.log((await response.text()).split('\n\n').length); // 7 (six events and the end)
 * ```
 */
export function toEventStreamResponse<T>(source: EventStreamSource<T>, options: ToEventStreamResponseOptions<T> = {}): Response {
  const { signal, headers, ...rest } = parseConfig(ToEventStreamResponseOptionsSchema, options, 'toEventStreamResponse options');
  const all = new Headers(eventStreamHeaders);
  new Headers(headers).forEach((value, name) => all.set(name, value));
  const body = eventStreamFrom(source, rest as Parameters<typeof eventStreamFrom<T>>[1], signal);
  return new Response(body, { status: 200, headers: all });
}
