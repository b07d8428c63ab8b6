import type { SpanContext } from '@opentelemetry/api';
import type { TraceContext } from '@rxagents/core';

/** A span's context written as W3C Trace Context. */
export function traceContextOfSpan(span: SpanContext): TraceContext {
  const traceparent = `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
  const tracestate = span.traceState?.serialize();
  return tracestate === undefined || tracestate === '' ? { traceparent } : { traceparent, tracestate };
}
