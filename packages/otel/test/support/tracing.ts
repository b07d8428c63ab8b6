import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { RunEvent } from '@rxagents/core';
import { lastValueFrom, type Observable, toArray } from 'rxjs';
import { traceToOpenTelemetry, type TraceToOpenTelemetryOptions } from '../../src';

/** A tracer whose spans end up in an in-memory exporter, as the real SDK exports them. */
export function tracing(): { readonly exporter: InMemorySpanExporter; readonly tracer: ReturnType<BasicTracerProvider['getTracer']> } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [startOrder, new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer('rxagents-test') };
}

/** Runs `events$` traced to a fresh in-memory exporter; the events it passed on and the finished spans. */
export async function traced(events$: Observable<RunEvent>, options: Omit<TraceToOpenTelemetryOptions, 'tracer'> = {}): Promise<{ events: RunEvent[]; spans: ReadableSpan[] }> {
  const { exporter, tracer } = tracing();
  const events = await lastValueFrom(events$.pipe(traceToOpenTelemetry({ tracer, ...options }), toArray()));
  return { events, spans: exporter.getFinishedSpans() };
}

/** The order spans started in, by span id, over every tracer of {@link tracing}. */
const started = new Map<string, number>();
const startOrder: SpanProcessor = {
  onStart: (span) => void started.set(span.spanContext().spanId, started.size),
  onEnd: () => undefined,
  forceFlush: async () => undefined,
  shutdown: async () => undefined,
};

/**
 * The span tree as indented lines (`name`, two spaces per level), children in the order they started:
 * what a trace viewer shows.
 */
export function treeOf(spans: readonly ReadableSpan[]): string[] {
  const ids = new Set(spans.map((span) => span.spanContext().spanId));
  const children = new Map<string | undefined, ReadableSpan[]>();
  for (const span of spans) {
    const parent = span.parentSpanContext?.spanId;
    const key = parent !== undefined && ids.has(parent) ? parent : undefined;
    children.set(key, [...(children.get(key) ?? []), span]);
  }
  const lines: string[] = [];
  const walk = (key: string | undefined, depth: number): void => {
    const list = [...(children.get(key) ?? [])].sort((a, b) => (started.get(a.spanContext().spanId) ?? 0) - (started.get(b.spanContext().spanId) ?? 0));
    for (const span of list) {
      lines.push(`${'  '.repeat(depth)}${span.name}`);
      walk(span.spanContext().spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines;
}

/** The one finished span named `name`. */
export function spanNamed(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((span) => span.name === name);
  if (found.length !== 1) throw new Error(`expected one span named "${name}", found ${found.length}: ${spans.map((span) => span.name).join(', ')}`);
  return found[0]!;
}
