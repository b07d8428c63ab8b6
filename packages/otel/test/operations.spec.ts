import { SpanStatusCode } from '@opentelemetry/api';
import { invoke$, observeRun } from '@rxagents/core';
import { aiSdkAgent } from '@rxagents/ai-sdk';
import { tool } from 'ai';
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test';
import { z } from 'zod';
import { spanNamed, traced, treeOf } from './support/tracing';

type DoStream = Extract<NonNullable<ConstructorParameters<typeof MockLanguageModelV3>[0]>['doStream'], (...args: never[]) => unknown>;
type StreamPart = Awaited<ReturnType<DoStream>>['stream'] extends ReadableStream<infer Part> ? Part : never;

const usage = (input: number, output: number) => ({ inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: output, text: output, reasoning: 0 } });

/** A model that calls `lookup` and `forecast` once, then answers. */
function weatherModel(): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doStream: async ({ prompt }) => {
      const answered = prompt.at(-1)?.role === 'tool';
      return {
        stream: convertArrayToReadableStream<StreamPart>(
          answered
            ? [
                { type: 'stream-start', warnings: [] },
                { type: 'text-start', id: 't' },
                { type: 'text-delta', id: 't', delta: 'Sunny.' },
                { type: 'text-end', id: 't' },
                { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(20, 2) },
              ]
            : [
                { type: 'stream-start', warnings: [] },
                { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: '{"city":"Oslo"}' },
                { type: 'tool-call', toolCallId: 'c2', toolName: 'forecast', input: '{}' },
                { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(10, 4) },
              ],
        ),
      };
    },
  });
}

describe('model calls and tool executions an agent reports', () => {
  it("aiSdkAgent's model calls are chat spans and its tools execute_tool spans, under the agent's invoke_agent span", async () => {
    const tools = {
      lookup: tool({ inputSchema: z.object({ city: z.string() }), execute: async () => ({ sunny: true }) }),
      forecast: tool({
        inputSchema: z.object({}),
        execute: async (): Promise<string> => {
          throw new Error('no forecast today');
        },
      }),
    };
    const agent = aiSdkAgent({ id: 'weather', model: weatherModel(), tools });
    const { spans } = await traced(observeRun('weather', 'Oslo?', (run) => invoke$(agent, 'Oslo?', { run })));
    expect(treeOf(spans).sort()).toEqual(
      ['invoke_workflow weather', '  invoke_agent weather', '    execute_tool lookup', '    execute_tool forecast', '    chat mock-model-id', '    chat mock-model-id'].sort(),
    );
    const chats = spans.filter((span) => span.name === 'chat mock-model-id');
    expect(chats.map((span) => span.attributes)).toEqual([
      expect.objectContaining({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'mock-model-id', 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 4, 'gen_ai.response.finish_reasons': ['tool-calls'] }),
      expect.objectContaining({ 'gen_ai.usage.input_tokens': 20, 'gen_ai.usage.output_tokens': 2, 'gen_ai.response.finish_reasons': ['stop'] }),
    ]);
    expect(spanNamed(spans, 'execute_tool lookup').attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup', 'gen_ai.tool.call.id': 'c1' });
    expect(spanNamed(spans, 'execute_tool lookup').status.code).toBe(SpanStatusCode.UNSET);
    const failed = spanNamed(spans, 'execute_tool forecast');
    expect(failed.status).toEqual({ code: SpanStatusCode.ERROR, message: 'the tool failed' });
    expect(failed.attributes['error.type']).toBe('ToolError');
    // The agent's own span still sums the reply's usage.
    expect(spanNamed(spans, 'invoke_agent weather').attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 30, 'gen_ai.usage.output_tokens': 6 });
  });

  it('a custom event of another name, or of the name with other data, stays a span event', async () => {
    const { spans } = await traced(
      observeRun('notes', 'go', (run) => {
        return invoke$(
          { id: 'noter', chat: async (_input, { run: inner }) => {
            const { emitCustom } = await import('@rxagents/core');
            emitCustom(inner, 'gen_ai.chat', { model: 42 });
            emitCustom(inner, 'note', { text: 'hi' });
            return 'ok';
          } },
          'go',
          { run },
        );
      }),
    );
    expect(treeOf(spans)).toEqual(['invoke_workflow notes', '  invoke_agent noter']);
    expect(spanNamed(spans, 'invoke_agent noter').events.map((event) => event.name)).toEqual(['custom', 'custom']);
  });
});
