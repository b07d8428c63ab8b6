import type { LanguageModelV3CallOptions, LanguageModelV3Prompt, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test';

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

type ToolResultPart = Extract<Extract<LanguageModelV3Prompt[number], { role: 'tool' }>['content'][number], { type: 'tool-result' }>;

/** What the model was given as a tool's result: `error: <text>` for an error result, else the value as JSON. */
export function seen(result: ToolResultPart): string {
  const { output } = result;
  if (output.type === 'error-text') return `error: ${output.value}`;
  if (output.type === 'error-json') return `error: ${JSON.stringify(output.value)}`;
  return 'value' in output ? JSON.stringify(output.value) : output.type;
}

/**
 * A model that calls `toolName` with `input` when the prompt ends with the user's message, and answers
 * with what it was given as the tool's result once it has one.
 */
export function callingModel(toolName: string, input: unknown): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doStream: async (options: LanguageModelV3CallOptions) => {
      const last = options.prompt.at(-1);
      const results = last?.role === 'tool' ? last.content.filter((part): part is ToolResultPart => part.type === 'tool-result') : [];
      const parts: LanguageModelV3StreamPart[] =
        results.length === 0
          ? [
              { type: 'stream-start', warnings: [] },
              { type: 'tool-call', toolCallId: 'call-1', toolName, input: JSON.stringify(input) },
              { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
            ]
          : [
              { type: 'stream-start', warnings: [] },
              { type: 'text-start', id: 't' },
              { type: 'text-delta', id: 't', delta: results.map(seen).join(' | ') },
              { type: 'text-end', id: 't' },
              { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
            ];
      return { stream: convertArrayToReadableStream(parts) };
    },
  });
}
