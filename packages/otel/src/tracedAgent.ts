import { context as otelContext, type Span, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { type Agent, type ChatOptions, parseConfig } from '@rxagents/core';
import { from, Observable } from 'rxjs';
import { z } from 'zod';
import * as genAi from './internal/genAi';
import { remoteParent } from './internal/remoteParent';
import { traceContextOfSpan } from './internal/traceContextOfSpan';

const isTracer = (value: unknown): value is Tracer =>
  typeof value === 'object' && value !== null && typeof (value as Tracer).startSpan === 'function' && typeof (value as Tracer).startActiveSpan === 'function';

/**
 * The options of {@link tracedAgent}, checked by this schema (bad values fail with a `ConfigError` naming the field).
 *
 * @example
 * ```ts
 * import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
 * import { TracedAgentOptionsSchema } from '@rxagents/otel';
 *
 * console.log(TracedAgentOptionsSchema.parse({ tracer: new BasicTracerProvider().getTracer('worker') }).captureContent); // false
 * ```
 */
export const TracedAgentOptionsSchema = z.strictObject({
  /** The tracer the call spans are made with. */
  tracer: z.custom<Tracer>(isTracer, { error: 'must be an OpenTelemetry Tracer (with startSpan and startActiveSpan)' }),
  /** Whether a span carries the call's input and reply (`gen_ai.input.messages`, `gen_ai.output.messages`). Off by default. */
  captureContent: z.boolean().default(false),
});

/**
 * The options of {@link tracedAgent}: `tracer` is required.
 *
 * @example
 * ```ts
 * import { trace } from '@opentelemetry/api';
 * import type { TracedAgentOptions } from '@rxagents/otel';
 *
 * const options: TracedAgentOptions = { tracer: trace.getTracer('worker') };
 * console.log(options.captureContent); // undefined
 * ```
 */
export type TracedAgentOptions = z.input<typeof TracedAgentOptionsSchema>;

/**
 * `agent` with an `invoke_agent <id>` span around each of its calls, started under the caller's span when the
 * call came from another process (`ChatOptions.traceContext`, which a Redis `serveAgent` worker sets from the
 * caller's call entry), and active while the agent works.
 *
 * @remarks
 * Serve `tracedAgent(agent, { tracer })` on a worker and each call's span has the caller's trace id and the
 * caller's `invoke_agent` span as its parent (kind SERVER); called in-process without a trace context, the span
 * starts in the active context (kind INTERNAL). The span is the active span while `chat` runs and while its reply
 * is read, so what the worker's own instrumentation records (the HTTP request to a model, a database query)
 * nests under it, and the agent gets the span's own trace context as `ChatOptions.traceContext` to pass on.
 * The agent's run events (a pattern it runs) travel back to the caller's run and become spans there, under the
 * caller's span for the call: they are not traced a second time here. The span's times are the tracer's clock.
 * A failure sets status ERROR and `error.type`; a cancellation (the caller unsubscribed, its lease ran out)
 * says `rxagents.cancelled: true`.
 *
 * @param agent - The agent to trace.
 * @param options - See {@link TracedAgentOptions}; checked when this is called.
 *
 * @example
 * ```ts
 * import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
 * import { defineAgent } from '@rxagents/core';
 * import { tracedAgent } from '@rxagents/otel';
 * import { from, lastValueFrom } from 'rxjs';
 *
 * const exporter = new InMemorySpanExporter();
 * const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('worker');
 * const writer = tracedAgent(defineAgent('writer', async (input: string) => `A story about ${input}`), { tracer });
 *
 * // What a serveAgent worker does with a call whose caller traced it:
 * const traceContext = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };
 * console.log(await lastValueFrom(from(writer.chat('a lighthouse', { signal: new AbortController().signal, traceContext })))); // A story about a lighthouse
 * const [span] = exporter.getFinishedSpans();
 * console.log(span?.name, span?.spanContext().traceId, span?.parentSpanContext?.spanId); // invoke_agent writer 4bf92f3577b34da6a3ce929d0e0e4736 00f067aa0ba902b7
 * ```
 */
export function tracedAgent(agent: Agent, options: TracedAgentOptions): Agent {
  const { tracer, captureContent } = parseConfig(TracedAgentOptionsSchema, options, `tracedAgent "${String((agent as Partial<Agent> | null)?.id)}"`);
  const traced: Agent = {
    id: agent.id,
    ...(agent.name === undefined ? {} : { name: agent.name }),
    ...(agent.role === undefined ? {} : { role: agent.role }),
    ...(agent.goal === undefined ? {} : { goal: agent.goal }),
    ...(agent.receive === undefined ? {} : { receive: (message) => agent.receive?.(message) }),
    chat: (input, chatOptions) =>
      new Observable<string>((subscriber) => {
        const local = otelContext.active();
        const parent = remoteParent(local, chatOptions.traceContext);
        const remote = parent !== local;
        const span = tracer.startSpan(
          `invoke_agent ${agent.id}`,
          { kind: remote ? SpanKind.SERVER : SpanKind.INTERNAL, attributes: callAttributes(agent, input, chatOptions, captureContent) },
          parent,
        );
        const active = trace.setSpan(parent, span);
        const text: string[] = [];
        let ended = false;
        const end = (error?: unknown): void => {
          if (ended) return;
          ended = true;
          if (error !== undefined) fail(span, error);
          else if (captureContent) span.setAttribute(genAi.GEN_AI_OUTPUT_MESSAGES, genAi.outputMessages(text.join(''), 'stop'));
          span.end();
        };
        const options = withTraceContext(chatOptions, traceContextOfSpan(span.spanContext()));
        const subscription = otelContext.with(active, () => {
          try {
            return from(agent.chat(input, options)).subscribe({
              next: (chunk) => {
                if (captureContent) text.push(chunk);
                subscriber.next(chunk);
              },
              error: (error: unknown) => {
                end(error);
                subscriber.error(error);
              },
              complete: () => {
                end();
                subscriber.complete();
              },
            });
          } catch (error) {
            end(error);
            subscriber.error(error);
            return undefined;
          }
        });
        return () => {
          subscription?.unsubscribe();
          if (!ended) {
            span.setAttribute('rxagents.cancelled', true);
            end();
          }
        };
      }),
  };
  return traced;
}

function callAttributes(agent: Agent, input: string, options: ChatOptions, captureContent: boolean): Record<string, string> {
  const attributes: Record<string, string> = {
    [genAi.GEN_AI_OPERATION_NAME]: 'invoke_agent',
    [genAi.GEN_AI_AGENT_ID]: agent.id,
    [genAi.GEN_AI_AGENT_NAME]: agent.name ?? agent.id,
  };
  if (options.run !== undefined) attributes[genAi.GEN_AI_CONVERSATION_ID] = options.run.runId;
  if (captureContent) attributes[genAi.GEN_AI_INPUT_MESSAGES] = genAi.inputMessages(input);
  return attributes;
}

function fail(span: Span, error: unknown): void {
  const name = error instanceof Error ? error.name : 'Error';
  if (name === 'AbortError') {
    span.setAttribute('rxagents.cancelled', true);
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  span.setAttribute(genAi.ERROR_TYPE, name);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.recordException({ name, message });
}

/** `options` with `traceContext` replaced, its `signal` read only when the agent reads it. */
function withTraceContext(options: ChatOptions, traceContext: ChatOptions['traceContext']): ChatOptions {
  return {
    get signal() {
      return options.signal;
    },
    ...(options.context === undefined ? {} : { context: options.context }),
    ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
    ...(options.run === undefined ? {} : { run: options.run }),
    ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
    ...(traceContext === undefined ? {} : { traceContext }),
  };
}
