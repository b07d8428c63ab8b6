import { SpanKind } from '@opentelemetry/api';
import { AgentError, defineAgent, emitCustom, invoke, invoke$, observeRun } from '@rxagents/core';
import { RemoteAgentError, remoteAgent } from '@rxagents/redis';
import { describeRedis } from '../../redis/test/support/describeRedis';
import { servedPerTest } from '../../redis/test/support/servedPerTest';
import { waitUntil } from '../../redis/test/support/waitUntil';
import { RunTraceContexts, traceToOpenTelemetry, tracedAgent } from '../src';
import { spanNamed, tracing, treeOf } from './support/tracing';

jest.setTimeout(30_000);

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describeRedis('trace context across processes, over Redis', (server) => {
  const served = servedPerTest('otel');

  it("a remote call carries the caller's span: the worker's span has the caller's trace id and the caller's call span as parent", async () => {
    const caller = tracing();
    const worker = tracing();
    const contexts = new RunTraceContexts();
    const writer = defineAgent('writer', async (input: string, { run }) => {
      emitCustom(run, 'draft', { words: 3 });
      return `A story about ${input}`;
    });
    served.serve(server().client(), tracedAgent(writer, { tracer: worker.tracer }));
    const remote = remoteAgent(server().client(), 'writer', { prefix: served.prefix, traceContext: contexts.traceContextOf });

    await new Promise<void>((resolve, reject) =>
      observeRun('story', 'a lighthouse', (run) => invoke$(remote, 'a lighthouse', { run }))
        .pipe(traceToOpenTelemetry({ tracer: caller.tracer, contexts }))
        .subscribe({ complete: resolve, error: reject }),
    );
    const callerSpans = caller.exporter.getFinishedSpans();
    expect(treeOf(callerSpans)).toEqual(['invoke_workflow story', '  invoke_agent writer']);
    const call = spanNamed(callerSpans, 'invoke_agent writer');
    expect(call.events.map((event) => event.name)).toEqual(['custom']);
    await waitUntil('the worker ended its span', async () => worker.exporter.getFinishedSpans().length === 1);
    const [served$] = worker.exporter.getFinishedSpans();
    expect(served$!.name).toBe('invoke_agent writer');
    expect(served$!.kind).toBe(SpanKind.SERVER);
    expect(served$!.spanContext().traceId).toBe(call.spanContext().traceId);
    expect(served$!.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    expect(served$!.parentSpanContext?.isRemote).toBe(true);
    expect(served$!.attributes['gen_ai.conversation.id']).toBe(call.attributes['gen_ai.conversation.id']);
  });

  it('a call outside any traced run carries no trace context: the worker starts a trace of its own', async () => {
    const worker = tracing();
    const contexts = new RunTraceContexts();
    served.serve(server().client(), tracedAgent(defineAgent('echo', async (input: string) => input), { tracer: worker.tracer }));
    const remote = remoteAgent(server().client(), 'echo', { prefix: served.prefix, traceContext: contexts.traceContextOf });
    expect(await invoke(remote, 'hi')).toBe('hi');
    await waitUntil('the worker ended its span', async () => worker.exporter.getFinishedSpans().length === 1);
    const [span] = worker.exporter.getFinishedSpans();
    expect([span!.parentSpanContext, span!.kind]).toEqual([undefined, SpanKind.INTERNAL]);
  });

  it('the worker refuses a call entry whose trace context is not W3C: the caller is told, the entry dead-lettered', async () => {
    const redis = server().client();
    const calls = `${served.prefix}:agent:{echo}:calls`;
    const remote = remoteAgent(server().client(), 'echo', { prefix: served.prefix });
    const failure = invoke(remote, 'hello').catch((error: unknown) => error);
    await waitUntil('the call is in the stream', async () => (await redis.xlen(calls)) === 1);
    const [[entryId, fields]] = (await redis.xrange(calls, '-', '+')) as [[string, string[]]];
    const call = JSON.parse(fields[fields.indexOf('call') + 1] as string) as Record<string, unknown>;
    await redis.xdel(calls, entryId);
    await redis.xadd(calls, '*', 'call', JSON.stringify({ ...call, trace: { traceparent: '00-xyz-1-01' } }));
    served.serve(server().client(), defineAgent('echo', async (input: string) => input));
    const error = await failure;
    expect(error).toBeInstanceOf(AgentError);
    const cause = (error as AgentError).cause as RemoteAgentError;
    expect(cause.remote).toMatchObject({ code: 'REMOTE_CALL_REFUSED' });
    expect(cause.remote.message).toMatch(/trace/);
  });

  it.each([
    [{ traceparent: 'garbage' }, undefined],
    [{ traceparent: TRACEPARENT, tracestate: 'Not A State' }, { traceparent: TRACEPARENT }],
  ])("a caller's malformed trace context %p is sent as %p: what is malformed is left out", async (given, sent) => {
    const redis = server().client();
    const calls = `${served.prefix}:agent:{echo}:calls`;
    const remote = remoteAgent(server().client(), 'echo', { prefix: served.prefix, traceContext: () => given });
    const reply = invoke(remote, 'hello');
    await waitUntil('the call is in the stream', async () => (await redis.xlen(calls)) === 1);
    const [[, fields]] = (await redis.xrange(calls, '-', '+')) as [[string, string[]]];
    expect((JSON.parse(fields[fields.indexOf('call') + 1] as string) as { trace?: unknown }).trace).toEqual(sent);
    served.serve(server().client(), defineAgent('echo', async (input: string) => input));
    expect(await reply).toBe('hello');
  });
}, true);
