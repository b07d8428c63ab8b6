import * as z from 'zod';
import { parseConfig } from '@rxagents/core';
import { isHeadersInit } from './internal/isHeadersInit';
import {
  checkSource,
  toUIMessageStream,
  ToUIMessageStreamOptionsSchema,
  type ToUIMessageStreamOptions,
  type UIMessageStreamSource,
} from './uiMessageStream';
import type { RunUIMessageChunk } from './RunUIMessageChunk';

/**
 * Options of {@link toUIMessageStreamResponse}: those of {@link toUIMessageStream}, plus the response's
 * status and extra headers.
 *
 * @example
 * ```ts
 * import type { ToUIMessageStreamResponseOptions } from '@rxagents/web';
 *
 * const options: ToUIMessageStreamResponseOptions = { delivery: 'conflate', headers: { 'x-run': 'story' } };
 * console.log(options.headers); // { 'x-run': 'story' }
 * ```
 */
export interface ToUIMessageStreamResponseOptions extends ToUIMessageStreamOptions {
  /** The HTTP status, 200 to 599 except 204, 205 and 304 (which have no body). Default 200. */
  readonly status?: number;
  /** Headers added to (or replacing) the UI message stream's own. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** The statuses whose responses have no body (the Fetch standard's null body statuses, 101 and 103 aside). */
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([204, 205, 304]);

/**
 * The zod schema of {@link ToUIMessageStreamResponseOptions}.
 *
 * @example
 * ```ts
 * import { ToUIMessageStreamResponseOptionsSchema } from '@rxagents/web';
 *
 * console.log(ToUIMessageStreamResponseOptionsSchema.safeParse({ status: 99 }).success); // false
 * ```
 */
export const ToUIMessageStreamResponseOptionsSchema = ToUIMessageStreamOptionsSchema.extend({
  status: z
    .number({ error: 'must be an HTTP status from 200 to 599' })
    .int('must be an HTTP status from 200 to 599')
    .min(200, 'must be an HTTP status from 200 to 599')
    .max(599, 'must be an HTTP status from 200 to 599')
    // A response with one of these statuses cannot have a body: `new Response` would throw.
    .refine((status) => !NULL_BODY_STATUSES.has(status), 'must be a status that may have a body (not 204, 205 or 304)')
    .optional(),
  headers: z
    .record(z.string(), z.string({ error: 'must be a string' }), { error: 'must be an object of strings' })
    .refine(isHeadersInit, 'must hold valid header names and values')
    .optional(),
});

/** The headers the `ai` package's `createUIMessageStreamResponse` sends, so `useChat` reads the stream. */
const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
};

/**
 * Serves a run as an AI SDK UI message stream: a `Response` that `useChat` (with its default
 * transport pointed at your route) reads as one assistant message.
 *
 * @remarks
 * The body is what the `ai` package's `createUIMessageStreamResponse` sends for the same chunks: each
 * chunk of {@link toUIMessageStream} as a Server-Sent Event `data: JSON`, then `data: [DONE]`, with the
 * same headers (`x-vercel-ai-ui-message-stream: v1` among them). The HTTP reader paces the run (with a
 * start function as `source`), a client that goes away cancels it, and so does aborting `signal` (pass
 * the request's `signal`, or a signal of your own to stop the run from the server: the page's chat then
 * ends with status `error`, see {@link toUIMessageStream} for exactly what it sees).
 *
 * @param source - The run's events, or a function that starts the run with a pacing function.
 * @param options - Those of {@link toUIMessageStream}, plus `status` and `headers`.
 * @returns A streaming `Response`.
 * @throws `ConfigError` for a bad option.
 *
 * @example
 * ```ts
 * import { from } from 'rxjs';
 * import { defineAgent, invoke$, observeRun } from '@rxagents/core';
 * import { toUIMessageStreamResponse } from '@rxagents/web';
 *
 * const writer = defineAgent('writer', () => from(['Once ', 'upon ', 'a time.']));
 * // A route handler: POST /api/chat
 * async function handle(request: Request): Promise<Response> {
 *   const prompt = 'Tell a story';
 *   return toUIMessageStreamResponse((pace) => observeRun('story', prompt, (run) => invoke$(writer, prompt, { run }), { pace }), {
 *     signal: request.signal,
 *   });
 * }
 * const response = await handle(new Request('https://example.com/api/chat', { method: 'POST' }));
 * console.log(response.headers.get('x-vercel-ai-ui-message-stream')); // v1
 * await response.body?.cancel(); // a body nobody reads is cancelled (else it is cut off after stallTimeoutMs)
 * ```
 *
 * @see {@link toUIMessageStream}
 */
export function toUIMessageStreamResponse(source: UIMessageStreamSource, options: ToUIMessageStreamResponseOptions = {}): Response {
  checkSource('toUIMessageStreamResponse', source);
  const { status, headers, ...streamOptions } = parseConfig(ToUIMessageStreamResponseOptionsSchema, options, 'toUIMessageStreamResponse options');
  const encoder = new TextEncoder();
  const body = toUIMessageStream(source, streamOptions).pipeThrough(
    new TransformStream<RunUIMessageChunk, Uint8Array>({
      transform: (chunk, controller) => controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`)),
      flush: (controller) => controller.enqueue(encoder.encode('data: [DONE]\n\n')),
    }),
  );
  return new Response(body, { status: status ?? 200, headers: { ...UI_MESSAGE_STREAM_HEADERS, ...headers } });
}
