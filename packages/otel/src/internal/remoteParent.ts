import { type Context, createTraceState, trace } from '@opentelemetry/api';
import { type TraceContext, TraceContextSchema } from '@rxagents/core';

/**
 * `context` with the remote span that a W3C trace context names as its span: the parent of the spans started
 * in it. A missing or malformed trace context (which W3C says to ignore) leaves `context` as it is.
 */
export function remoteParent(context: Context, traceContext: TraceContext | undefined): Context {
  if (traceContext === undefined) return context;
  const checked = TraceContextSchema.safeParse(traceContext);
  if (!checked.success) return context;
  const [, traceId, spanId, flags] = checked.data.traceparent.split('-') as [string, string, string, string];
  const traceState = checked.data.tracestate === undefined ? undefined : createTraceState(checked.data.tracestate);
  return trace.setSpanContext(context, { traceId, spanId, traceFlags: Number.parseInt(flags, 16), isRemote: true, ...(traceState === undefined ? {} : { traceState }) });
}
