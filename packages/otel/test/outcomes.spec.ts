import { type Context, context, ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import { AgentTimeoutError, ConfigError, defineAgent, emitUsage, invoke$, observeRun, type RunEvent } from '@rxagents/core';
import { failingAgent, hangingAgent } from '@rxagents/testing';
import { config, from, map, NEVER, Subject, switchMap, takeUntil, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { RunTraceContexts, traceToOpenTelemetry, TracingError } from '../src';
import { StackContextManager } from './support/StackContextManager';
import { spanNamed, traced, tracing, treeOf } from './support/tracing';

beforeAll(() => context.setGlobalContextManager(new StackContextManager()));
afterAll(() => context.disable());

const base = (type: string, callId: string, parentCallId: string | null, at: number) => ({ type, runId: 'r1', callId, parentCallId, at });

describe('traceToOpenTelemetry: outcomes, content, time and options', () => {
  it('a failed call sets status ERROR, error.type (the error name) and the code, and records the exception', async () => {
    const broken = failingAgent('broken', new Error('model unavailable'));
    const { spans } = await traced(observeRun('ask', 'go', (run) => invoke$(broken, 'go', { run })));
    const call = spanNamed(spans, 'invoke_agent broken');
    expect(call.status).toEqual({ code: SpanStatusCode.ERROR, message: expect.stringContaining('model unavailable') });
    expect(call.attributes['error.type']).toBe('AgentError');
    expect(call.attributes['rxagents.error.code']).toBe('AGENT_ERROR');
    expect(call.events.map((event) => event.name)).toEqual(['exception']);
    expect(spanNamed(spans, 'invoke_workflow ask').status.code).toBe(SpanStatusCode.ERROR);
  });

  it('a timeout is a failure named after its error', async () => {
    const { spans } = await traced(observeRun('ask', 'go', (run) => invoke$(hangingAgent('slow'), 'go', { run, timeout: 5 })));
    expect(spanNamed(spans, 'invoke_agent slow').attributes['error.type']).toBe(AgentTimeoutError.name);
  });

  it('a cancelled call (AbortError) says rxagents.cancelled and keeps an unset status; so does every span open when the events are unsubscribed', async () => {
    const { exporter, tracer } = tracing();
    const seen: RunEvent[] = [];
    const stop = new Subject<void>();
    const done = new Promise<void>((resolve) =>
      observeRun('wait', 'go', (run) => invoke$(hangingAgent('stuck'), 'go', { run }))
        .pipe(traceToOpenTelemetry({ tracer }), takeUntil(stop))
        .subscribe({ next: (event) => seen.push(event), complete: resolve }),
    );
    await new Promise((resolve) => setTimeout(resolve, 5));
    stop.next();
    await done;
    expect(seen.map((event) => event.type)).toEqual(['run-start', 'call-start']);
    expect(treeOf(exporter.getFinishedSpans())).toEqual(['invoke_workflow wait', '  invoke_agent stuck']);
    for (const span of exporter.getFinishedSpans()) {
      expect(span.attributes['rxagents.cancelled']).toBe(true);
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
    }
  });

  it('a call-error named AbortError in the events is a cancellation, not a failure', async () => {
    const events = [
      { ...base('run-start', 'r', null, 0), name: 'run', input: 'go' },
      { ...base('call-start', 'c', 'r', 1), agentId: 'a', input: 'go' },
      { ...base('call-error', 'c', 'r', 2), agentId: 'a', error: { name: 'AbortError', message: 'The run was cancelled' }, durationMs: 1 },
      { ...base('run-end', 'r', null, 3), success: false, error: { name: 'AbortError', message: 'The run was cancelled' }, durationMs: 3 },
    ] as RunEvent[];
    const { spans } = await traced(from(events));
    for (const span of spans) expect([span.status.code, span.attributes['rxagents.cancelled'], span.attributes['error.type']]).toEqual([SpanStatusCode.UNSET, true, undefined]);
  });

  it('usage reports add up on their call span as gen_ai.usage.*', async () => {
    const model = defineAgent('model', async (_input, { run }) => {
      emitUsage(run, { agentId: 'model', inputTokens: 10, outputTokens: 3 });
      emitUsage(run, { agentId: 'model', inputTokens: 5, outputTokens: 2 });
      return 'ok';
    });
    const { spans } = await traced(observeRun('ask', 'go', (run) => invoke$(model, 'go', { run })));
    expect(spanNamed(spans, 'invoke_agent model').attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 15, 'gen_ai.usage.output_tokens': 5 });
  });

  it('content only with captureContent: the input and the whole reply as GenAI messages, message contents', async () => {
    const writer = defineAgent('writer', () => from(['Once ', 'upon']));
    const run$ = () => observeRun('story', 'Tell a story', (run) => invoke$(writer, 'Tell a story', { run }));
    const quiet = spanNamed((await traced(run$())).spans, 'invoke_agent writer');
    expect(quiet.attributes['gen_ai.input.messages']).toBeUndefined();
    const loud = spanNamed((await traced(run$(), { captureContent: true })).spans, 'invoke_agent writer');
    expect(JSON.parse(String(loud.attributes['gen_ai.input.messages']))).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'Tell a story' }] }]);
    expect(JSON.parse(String(loud.attributes['gen_ai.output.messages']))).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'Once upon' }], finish_reason: 'stop' }]);
  });

  it('an approval interrupt is a span named after its action, with gen_ai.tool.name and the decision', async () => {
    const events = [
      { ...base('run-start', 'r', null, 0), name: 'run', input: 'go' },
      { ...base('interrupt', 'i', 'r', 1), interruptId: 'q1', kind: 'approval', question: 'Send it?', schema: {}, action: 'send_invoice', args: { to: 'ada' } },
      { ...base('interrupt-end', 'i', 'r', 4), interruptId: 'q1', answered: true, answer: { approved: false, reason: 'no' }, durationMs: 3 },
      { ...base('run-end', 'r', null, 5), success: true, output: 'done', durationMs: 5 },
    ] as RunEvent[];
    const { spans } = await traced(from(events));
    expect(treeOf(spans)).toEqual(['invoke_workflow run', '  interrupt approval send_invoice']);
    expect(spanNamed(spans, 'interrupt approval send_invoice').attributes).toMatchObject({
      'gen_ai.tool.name': 'send_invoice',
      'rxagents.interrupt.kind': 'approval',
      'rxagents.interrupt.answered': true,
      'rxagents.interrupt.approved': false,
    });
    expect(spanNamed(spans, 'interrupt approval send_invoice').attributes['rxagents.interrupt.args']).toBeUndefined();
  });

  it('span times are the events\' `at` (here virtual time: exact durations), or the tracer\'s clock with clock: "tracer"', async () => {
    const { exporter, tracer } = tracing();
    new TestScheduler((a, b) => expect(a).toEqual(b)).run(({ expectObservable }) => {
      const slow = defineAgent('slow', () => timer(250).pipe(map(() => 'x')));
      const events$ = observeRun('ask', 'go', (run) => timer(1_500).pipe(switchMap(() => invoke$(slow, 'go', { run }))));
      expectObservable(events$.pipe(traceToOpenTelemetry({ tracer }), map((event) => event.type))).toBe('a 1499ms b 249ms (cde|)', { a: 'run-start', b: 'call-start', c: 'text-delta', d: 'call-end', e: 'run-end' });
    });
    const call = spanNamed(exporter.getFinishedSpans(), 'invoke_agent slow');
    expect([call.startTime, call.endTime]).toEqual([[1, 500_000_000], [1, 750_000_000]]);
    const { spans } = await traced(observeRun('ask', 'go', (run) => invoke$(defineAgent('quick', async () => 'x'), 'go', { run })), { clock: 'tracer' });
    expect(spanNamed(spans, 'invoke_agent quick').startTime[0]).toBeGreaterThan(1_600_000_000);
  });

  it('root spans start in the given parent context (a request span), else in the active context', async () => {
    const { exporter, tracer } = tracing();
    const request = tracer.startSpan('GET /runs');
    const parent: Context = trace.setSpan(ROOT_CONTEXT, request);
    const run$ = observeRun('ask', 'go', (run) => invoke$(defineAgent('a', async () => 'x'), 'go', { run }));
    await new Promise<void>((resolve) => run$.pipe(traceToOpenTelemetry({ tracer, parent })).subscribe({ complete: resolve }));
    await new Promise<void>((resolve) => context.with(parent, () => run$.pipe(traceToOpenTelemetry({ tracer })).subscribe({ complete: resolve })));
    request.end();
    const roots = exporter.getFinishedSpans().filter((span) => span.name === 'invoke_workflow ask');
    expect(roots.map((span) => span.parentSpanContext?.spanId)).toEqual([request.spanContext().spanId, request.spanContext().spanId]);
  });

  it('RunTraceContexts gives the W3C trace context of an open call span while the agent runs, and forgets it when it ends', async () => {
    const { exporter, tracer } = tracing();
    const contexts = new RunTraceContexts();
    let seen: ReturnType<RunTraceContexts['traceContextOf']>;
    const agent = defineAgent('a', async (_input, { run }) => {
      seen = contexts.traceContextOf(run);
      return 'x';
    });
    let runContext: Parameters<RunTraceContexts['traceContextOf']>[0];
    const run$ = observeRun('ask', 'go', (run) => ((runContext = run), invoke$(agent, 'go', { run })));
    await new Promise<void>((resolve) => run$.pipe(traceToOpenTelemetry({ tracer, contexts })).subscribe({ complete: resolve }));
    const call = spanNamed(exporter.getFinishedSpans(), 'invoke_agent a');
    expect(seen).toEqual({ traceparent: `00-${call.spanContext().traceId}-${call.spanContext().spanId}-01` });
    expect(contexts.traceContextOf(runContext)).toBeUndefined();
  });

  it('spans still open when the events complete or error end then: unfinished, or failed with the error', async () => {
    const start = [{ ...base('run-start', 'r', null, 0), name: 'run', input: 'go' }] as RunEvent[];
    const { spans } = await traced(from(start));
    expect(spans[0]!.attributes['rxagents.unfinished']).toBe(true);
    const { exporter, tracer } = tracing();
    const source = new Subject<RunEvent>();
    const error = new Promise<unknown>((resolve) => source.pipe(traceToOpenTelemetry({ tracer })).subscribe({ error: resolve }));
    source.next(start[0]!);
    source.error(new TypeError('socket closed'));
    await expect(error).resolves.toBeInstanceOf(TypeError);
    expect(exporter.getFinishedSpans()[0]!.attributes['error.type']).toBe('TypeError');
  });

  it('a tracer that throws never touches the run: the events go on and one TracingError is reported', async () => {
    const reported: unknown[] = [];
    const previous = config.onUnhandledError;
    config.onUnhandledError = (error) => reported.push(error);
    try {
      const tracer = { startSpan: () => { throw new Error('exporter down'); }, startActiveSpan: () => undefined } as never;
      const events: RunEvent[] = [];
      await new Promise<void>((resolve) =>
        observeRun('ask', 'go', (run) => invoke$(defineAgent('a', async () => 'x'), 'go', { run }))
          .pipe(traceToOpenTelemetry({ tracer }))
          .subscribe({ next: (event) => events.push(event), complete: resolve }),
      );
      expect(events.map((event) => event.type)).toEqual(['run-start', 'call-start', 'text-delta', 'call-end', 'run-end']);
      expect(reported).toHaveLength(1);
      expect(reported[0]).toBeInstanceOf(TracingError);
      expect((reported[0] as TracingError).code).toBe('TRACING_FAILED');
    } finally {
      config.onUnhandledError = previous;
    }
  });

  it.each([
    [{}, /tracer/],
    [{ tracer: {} }, /tracer must be an OpenTelemetry Tracer/],
    [{ tracer: trace.getTracer('t'), captureContent: 'yes' }, /captureContent/],
    [{ tracer: trace.getTracer('t'), clock: 'wall' }, /clock/],
    [{ tracer: trace.getTracer('t'), captureContents: true }, /captureContents/],
  ])('options %p are a ConfigError naming the field', (options, message) => {
    expect(() => traceToOpenTelemetry(options as never)).toThrow(ConfigError);
    expect(() => traceToOpenTelemetry(options as never)).toThrow(message);
  });

  it('passes NEVER through without spans', () => {
    const { exporter, tracer } = tracing();
    NEVER.pipe(traceToOpenTelemetry({ tracer })).subscribe().unsubscribe();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
