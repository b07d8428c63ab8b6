import { CoordinationError } from '@rxagents/core';

/**
 * The tracer threw while a run's events were turned into spans: reported (through RxJS's
 * `config.onUnhandledError`, else thrown on a later microtask), never passed into the run.
 *
 * @remarks
 * Tracing watches a run; it does not take part in it. When the tracer (or a span processor behind it) throws,
 * the event still goes on unchanged to the run's other readers, and this error, with the tracer's error as its
 * `cause` and the event's `type` in `context`, is reported once per stream of events; the spans of that stream
 * may then be incomplete.
 *
 * @example
 * ```ts
 * import { TracingError } from '@rxagents/otel';
 *
 * const error = new TracingError('call-start', new Error('exporter down'));
 * console.log(error.code, error.message); // TRACING_FAILED Tracing a "call-start" event failed: exporter down
 * ```
 */
export class TracingError extends CoordinationError {
  constructor(
    /** The `type` of the event being traced when the tracer threw. */
    readonly eventType: string,
    cause: unknown,
  ) {
    super('TRACING_FAILED', `Tracing a "${eventType}" event failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause, context: { eventType } });
  }
}
