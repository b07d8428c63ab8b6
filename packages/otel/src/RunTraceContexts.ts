import type { SpanContext } from '@opentelemetry/api';
import type { RunContext, TraceContext } from '@rxagents/core';
import { traceContextOfSpan } from './internal/traceContextOfSpan';

/**
 * The W3C trace context of every node a {@link traceToOpenTelemetry} operator has open: what a call that leaves
 * the process (a Redis `remoteAgent` call) carries, so the spans on the other side join this trace.
 *
 * @remarks
 * Give one to the operator (`contexts`) and its `traceContextOf` to `remoteAgent`'s `traceContext` option:
 * when a remote call is sent, its node's span (the `invoke_agent` span of the call) is open, and the call
 * entry carries that span's `traceparent` and `tracestate`. A node is forgotten when its span ends, so this
 * holds only the nodes running now. One object can serve any number of operators and runs.
 *
 * @example
 * ```ts
 * import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
 * import { RunTraceContexts, traceToOpenTelemetry } from '@rxagents/otel';
 *
 * const contexts = new RunTraceContexts();
 * const trace = traceToOpenTelemetry({ tracer: new BasicTracerProvider().getTracer('app'), contexts });
 * // remoteAgent(redis, 'writer', { traceContext: contexts.traceContextOf }) carries it across
 * console.log(typeof trace, contexts.traceContextOf(undefined)); // function undefined
 * ```
 */
export class RunTraceContexts {
  /** Open spans by run id, then by node id (node ids are unique within a run only). */
  readonly #open = new Map<string, Map<string, SpanContext>>();

  /**
   * The trace context of the span of `run`'s node (`run.callId`) while it is open; `undefined` outside a run,
   * for a node no operator traces, or once its span ended. A function property, so it can be passed on as it is.
   */
  readonly traceContextOf = (run: RunContext | undefined): TraceContext | undefined => {
    if (run === undefined || run.callId === null) return undefined;
    const span = this.#open.get(run.runId)?.get(run.callId);
    return span === undefined ? undefined : traceContextOfSpan(span);
  };

  /** @internal Records the span of a node that just started. */
  opened(runId: string, callId: string, span: SpanContext): void {
    let nodes = this.#open.get(runId);
    if (nodes === undefined) this.#open.set(runId, (nodes = new Map()));
    nodes.set(callId, span);
  }

  /** @internal Forgets the span of a node that ended. */
  closed(runId: string, callId: string): void {
    const nodes = this.#open.get(runId);
    if (nodes === undefined) return;
    nodes.delete(callId);
    if (nodes.size === 0) this.#open.delete(runId);
  }
}
