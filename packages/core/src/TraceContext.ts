import * as z from 'zod';

// W3C Trace Context, level 1: version 00, a 32-hex trace id and a 16-hex parent id that are not all zeros, 2-hex flags.
const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;
// At most 32 list members `key=value`: a key of lowercase letters, digits and `_-*/@`, a value of printable ASCII without `,` and `=`.
const MEMBER = '[a-z0-9][a-z0-9_\\-*/@]{0,255}=[\\x20-\\x2b\\x2d-\\x3c\\x3e-\\x7e]{0,255}[\\x21-\\x2b\\x2d-\\x3c\\x3e-\\x7e]';
const TRACESTATE = new RegExp(`^${MEMBER}(?:[ \\t]*,[ \\t]*${MEMBER}){0,31}$`);

/**
 * The zod schema of a {@link TraceContext}: a W3C `traceparent` (version `00`) and an optional `tracestate`.
 *
 * @remarks
 * Strict: anything else is refused. `traceparent` is `00-<32 hex trace id>-<16 hex parent span id>-<2 hex
 * flags>`, lowercase, neither id all zeros; `tracestate` is a list of at most 32 `key=value` members of at most
 * 512 characters in all. Check a trace context read from a wire (a queue entry, a header) with it before use.
 *
 * @example
 * ```ts
 * import { TraceContextSchema } from '@rxagents/core';
 *
 * const ok = TraceContextSchema.safeParse({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });
 * console.log(ok.success); // true
 * console.log(TraceContextSchema.safeParse({ traceparent: 'not-a-trace' }).success); // false
 * ```
 */
export const TraceContextSchema = z.strictObject({
  traceparent: z.string().regex(TRACEPARENT, 'must be a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>)'),
  tracestate: z.string().max(512).regex(TRACESTATE, 'must be a W3C tracestate (key=value, comma separated)').optional(),
});

/**
 * Where a call sits in a distributed trace, as W3C Trace Context carries it between processes.
 *
 * @remarks
 * Plain strings, so no package of the toolkit needs a tracing library to pass it on: a caller that traces its
 * runs (for example with `@rxagents/otel`) fills it, a transport (a Redis call entry) carries it, and the agent
 * that answers on the other side finds it in `ChatOptions.traceContext` and starts its spans under it.
 *
 * @example
 * ```ts
 * import type { TraceContext } from '@rxagents/core';
 *
 * const context: TraceContext = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };
 * console.log(context.traceparent.split('-')[1]); // 4bf92f3577b34da6a3ce929d0e0e4736
 * ```
 */
export interface TraceContext {
  /** The W3C `traceparent`: `00-<trace id>-<parent span id>-<flags>`. */
  readonly traceparent: string;
  /** The W3C `tracestate`, vendor-specific entries, when there are any. */
  readonly tracestate?: string;
}
