import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ConfigError, defineAgent, invoke, stream, type TraceContext } from '@rxagents/core';
import { hangingAgent } from '@rxagents/testing';
import { firstValueFrom, from, lastValueFrom, toArray } from 'rxjs';
import { tracedAgent } from '../src';
import { StackContextManager } from './support/StackContextManager';
import { tracing } from './support/tracing';

beforeAll(() => context.setGlobalContextManager(new StackContextManager()));
afterAll(() => context.disable());

const callerContext: TraceContext = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', tracestate: 'rojo=00f067aa0ba902b7' };

describe('tracedAgent', () => {
  it("starts each call's span under the trace context it is given, active while the agent works, and hands the agent its own", async () => {
    const { exporter, tracer } = tracing();
    let activeSpanId: string | undefined;
    let given: TraceContext | undefined;
    const writer = tracedAgent(
      defineAgent('writer', (input: string, { traceContext }) => {
        activeSpanId = trace.getSpan(context.active())?.spanContext().spanId;
        given = traceContext;
        return from(['A story ', `about ${input}`]);
      }),
      { tracer },
    );
    const reply = await lastValueFrom(from(writer.chat('a lighthouse', { signal: new AbortController().signal, traceContext: callerContext })).pipe(toArray()));
    expect(reply).toEqual(['A story ', 'about a lighthouse']);
    const [span] = exporter.getFinishedSpans();
    expect(span!.name).toBe('invoke_agent writer');
    expect(span!.kind).toBe(SpanKind.SERVER);
    expect(span!.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(span!.parentSpanContext).toMatchObject({ spanId: '00f067aa0ba902b7', isRemote: true });
    expect(span!.spanContext().traceState?.get('rojo')).toBe('00f067aa0ba902b7');
    expect(activeSpanId).toBe(span!.spanContext().spanId);
    expect(given).toEqual({ traceparent: `00-4bf92f3577b34da6a3ce929d0e0e4736-${span!.spanContext().spanId}-01`, tracestate: 'rojo=00f067aa0ba902b7' });
    expect(span!.attributes).toEqual({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.id': 'writer', 'gen_ai.agent.name': 'writer' });
  });

  it('without a trace context the span starts in the active context, kind INTERNAL; a malformed one is ignored', async () => {
    const { exporter, tracer } = tracing();
    const echo = tracedAgent(defineAgent('echo', async (input: string) => input), { tracer });
    expect(await invoke(echo, 'hi')).toBe('hi');
    await lastValueFrom(from(echo.chat('x', { signal: new AbortController().signal, traceContext: { traceparent: 'nonsense' } })));
    for (const span of exporter.getFinishedSpans()) expect([span.kind, span.parentSpanContext]).toEqual([SpanKind.INTERNAL, undefined]);
  });

  it('a failure sets ERROR and error.type; a cancelled call says rxagents.cancelled', async () => {
    const { exporter, tracer } = tracing();
    const broken = tracedAgent(defineAgent('broken', async () => { throw new RangeError('out of tokens'); }), { tracer });
    await expect(invoke(broken, 'go')).rejects.toThrow('out of tokens');
    const stuck = tracedAgent(hangingAgent('stuck'), { tracer });
    const subscription = stream(stuck, 'go').subscribe();
    subscription.unsubscribe();
    const [failed, cancelled] = exporter.getFinishedSpans();
    expect([failed!.status.code, failed!.attributes['error.type']]).toEqual([SpanStatusCode.ERROR, 'RangeError']);
    expect([cancelled!.status.code, cancelled!.attributes['rxagents.cancelled']]).toEqual([SpanStatusCode.UNSET, true]);
  });

  it('content only with captureContent, and the agent keeps its id, name and role', async () => {
    const { exporter, tracer } = tracing();
    const agent = tracedAgent({ id: 'w', name: 'Writer', role: 'writes', chat: async (input: string) => `re ${input}` }, { tracer, captureContent: true });
    expect([agent.id, agent.name, agent.role]).toEqual(['w', 'Writer', 'writes']);
    expect(await firstValueFrom(stream(agent, 'hi'))).toBe('re hi');
    const [span] = exporter.getFinishedSpans();
    expect(span!.attributes['gen_ai.agent.name']).toBe('Writer');
    expect(JSON.parse(String(span!.attributes['gen_ai.output.messages']))[0].parts[0].content).toBe('re hi');
    expect(JSON.parse(String(span!.attributes['gen_ai.input.messages']))[0].parts[0].content).toBe('hi');
  });

  it.each([[{}], [{ tracer: trace.getTracer('t'), captureContent: 1 }], [{ tracer: trace.getTracer('t'), extra: true }]])('options %p are a ConfigError', (options) => {
    expect(() => tracedAgent(defineAgent('a', async () => 'x'), options as never)).toThrow(ConfigError);
  });
});
