import { type Context, context as otelContext, type Tracer } from '@opentelemetry/api';
import { parseConfig, reportUnhandledError, type RunEvent } from '@rxagents/core';
import { type MonoTypeOperatorFunction, Observable } from 'rxjs';
import { z } from 'zod';
import { TracingError } from './errors/TracingError';
import { type Cut, RunSpans } from './internal/RunSpans';
import { RunTraceContexts } from './RunTraceContexts';

const isTracer = (value: unknown): value is Tracer =>
  typeof value === 'object' && value !== null && typeof (value as Tracer).startSpan === 'function' && typeof (value as Tracer).startActiveSpan === 'function';
const isContext = (value: unknown): value is Context =>
  typeof value === 'object' && value !== null && typeof (value as Context).getValue === 'function' && typeof (value as Context).setValue === 'function';

/**
 * The options of {@link traceToOpenTelemetry}, checked by this schema (bad values fail with a `ConfigError`
 * naming the field).
 *
 * @example
 * ```ts
 * import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
 * import { TraceToOpenTelemetryOptionsSchema } from '@rxagents/otel';
 *
 * const options = TraceToOpenTelemetryOptionsSchema.parse({ tracer: new BasicTracerProvider().getTracer('app') });
 * console.log(options.captureContent, options.clock); // false events
 * ```
 */
export const TraceToOpenTelemetryOptionsSchema = z.strictObject({
  /** The tracer the spans are made with (`trace.getTracer('my-app')` once the SDK is set up). */
  tracer: z.custom<Tracer>(isTracer, { error: 'must be an OpenTelemetry Tracer (with startSpan and startActiveSpan)' }),
  /**
   * Whether the spans carry what was said: inputs and replies (`gen_ai.input.messages`,
   * `gen_ai.output.messages`), pattern messages, interrupt questions, arguments and answers, `custom` data.
   * Off by default: prompts and replies often hold personal data that a trace backend should not keep.
   */
  captureContent: z.boolean().default(false),
  /**
   * Where span times come from. `'events'` (default): each span starts and ends at its events' `at`, read as
   * ms since the epoch, as the default `asyncScheduler` gives them; a run on virtual time then gives spans
   * from 1970 with exact virtual durations (what a test wants). `'tracer'`: the tracer's own clock when the
   * operator sees each event, for a run whose scheduler is not the wall clock but whose trace you export.
   */
  clock: z.enum(['events', 'tracer']).default('events'),
  /**
   * The context the root spans start in: a span of yours, or a remote parent taken from a request's
   * `traceparent` header (`propagation.extract(ROOT_CONTEXT, headers)`). Defaults to the active context when
   * the events are subscribed to.
   */
  parent: z.custom<Context>(isContext, { error: 'must be an OpenTelemetry Context' }).optional(),
  /** Records the trace context of every open node, for calls that leave the process: see {@link RunTraceContexts}. */
  contexts: z.instanceof(RunTraceContexts, { error: 'must be a RunTraceContexts' }).optional(),
});

/**
 * The options of {@link traceToOpenTelemetry}: `tracer` is required, every other field optional.
 *
 * @example
 * ```ts
 * import { trace } from '@opentelemetry/api';
 * import type { TraceToOpenTelemetryOptions } from '@rxagents/otel';
 *
 * const options: TraceToOpenTelemetryOptions = { tracer: trace.getTracer('support-bot'), captureContent: true };
 * console.log(options.captureContent); // true
 * ```
 */
export type TraceToOpenTelemetryOptions = z.input<typeof TraceToOpenTelemetryOptionsSchema>;

/**
 * Turns a run's events into OpenTelemetry spans that follow the semantic conventions for generative AI, and
 * passes every event on unchanged.
 *
 * @remarks
 * Works on any stream of {@link RunEvent}s: `observeRun`, any primitive's `events$`, events read back from a
 * wire. Each run or nested run is an `invoke_workflow <name>` span, each agent call an `invoke_agent <agentId>`
 * span, each interrupt an `interrupt <kind>` span (with ` <action>` for an approval that names one), nested as
 * the events nest (`parentCallId`), all with `gen_ai.conversation.id` = the run id. What happens inside a node
 * (a handoff, a choreography event or step, a pattern's message, round end or termination, a custom event) is a
 * span event of its span; a `usage` report adds to its node's `gen_ai.usage.input_tokens`/`output_tokens`.
 * A failure sets the span's status to ERROR and `error.type` to the error's name; a cancellation (an error named
 * `AbortError`) is no failure: the span says `rxagents.cancelled: true` and keeps an unset status.
 *
 * When the events stop before a node ended, its span is ended then, at the last event's time: on
 * unsubscription with `rxagents.cancelled: true`, on an error with status ERROR, on completion with
 * `rxagents.unfinished: true`. A tracer that throws never affects the run: the event goes on and a
 * {@link TracingError} is reported. The full list of names and attributes is in `docs/observability.md`.
 *
 * @param options - See {@link TraceToOpenTelemetryOptions}; checked when this is called.
 *
 * @example
 * ```ts
 * import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
 * import { defineAgent, invoke$, observeRun } from '@rxagents/core';
 * import { traceToOpenTelemetry } from '@rxagents/otel';
 *
 * const exporter = new InMemorySpanExporter();
 * const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('docs');
 * const writer = defineAgent('writer', async () => 'Once upon a time.');
 *
 * observeRun('story', 'Tell a story', (run) => invoke$(writer, 'Tell a story', { run }))
 *   .pipe(traceToOpenTelemetry({ tracer }))
 *   .subscribe({ complete: () => console.log(exporter.getFinishedSpans().map((span) => span.name)) });
 * // [ 'invoke_agent writer', 'invoke_workflow story' ]
 * ```
 */
export function traceToOpenTelemetry(options: TraceToOpenTelemetryOptions): MonoTypeOperatorFunction<RunEvent> {
  const config = parseConfig(TraceToOpenTelemetryOptionsSchema, options, 'traceToOpenTelemetry');
  return (events$) =>
    new Observable<RunEvent>((subscriber) => {
      const spans = new RunSpans({ ...config, parent: config.parent ?? otelContext.active(), contexts: config.contexts });
      let reported = false;
      const guarded = (eventType: string, work: () => void): void => {
        try {
          work();
        } catch (error) {
          if (reported) return;
          reported = true;
          reportUnhandledError(new TracingError(eventType, error));
        }
      };
      let cut: Cut | undefined;
      const endAll = (how: Cut): void => {
        if (cut !== undefined) return;
        cut = how;
        guarded('end', () => spans.endAll(how));
      };
      const subscription = events$.subscribe({
        next: (event) => {
          guarded(event.type, () => spans.apply(event));
          subscriber.next(event);
        },
        error: (error: unknown) => {
          endAll({ kind: 'error', error });
          subscriber.error(error);
        },
        complete: () => {
          endAll({ kind: 'complete' });
          subscriber.complete();
        },
      });
      return () => {
        subscription.unsubscribe();
        endAll({ kind: 'unsubscribe' });
      };
    });
}
