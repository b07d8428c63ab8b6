import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test';

type DoStream = Extract<NonNullable<ConstructorParameters<typeof MockLanguageModelV3>[0]>['doStream'], (...args: never[]) => unknown>;
type CallOptions = Parameters<DoStream>[0];
type Prompt = CallOptions['prompt'];
type StreamPart = Awaited<ReturnType<DoStream>>['stream'] extends ReadableStream<infer Part> ? Part : never;

/** The invoice the scripted model asks to send: what the approval card shows as the tool's arguments. */
export const invoiceAmount = { amount: 1250, currency: 'EUR' } as const;

const usage = (input: number, output: number) => ({ inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: output, text: output, reasoning: 0 } });

/**
 * A scripted language model for the demo (the AI SDK's own `MockLanguageModelV3`, so the demo needs no
 * provider account): asked to invoice a customer, it calls the `send_invoice` tool with the customer from
 * the user's message; given the tool's result, it answers with it; given a refusal, it says why.
 */
export function invoiceModel(): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doStream: async ({ prompt }: CallOptions) => {
      const result = lastToolResult(prompt);
      const parts: StreamPart[] =
        result === undefined
          ? [
              { type: 'stream-start', warnings: [] },
              { type: 'tool-call', toolCallId: 'invoice-1', toolName: 'send_invoice', input: JSON.stringify({ customer: lastUserText(prompt), ...invoiceAmount }) },
              { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(40, 12) },
            ]
          : [
              { type: 'stream-start', warnings: [] },
              { type: 'text-start', id: 'answer' },
              { type: 'text-delta', id: 'answer', delta: result },
              { type: 'text-end', id: 'answer' },
              { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(60, 9) },
            ];
      return { stream: convertArrayToReadableStream(parts) };
    },
  });
}

function lastUserText(prompt: Prompt): string {
  const user = [...prompt].reverse().find((message) => message.role === 'user');
  if (user === undefined || user.role !== 'user') return '';
  return user.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** What the model says after the tool: its result, or why it was not run. */
function lastToolResult(prompt: Prompt): string | undefined {
  const last = prompt.at(-1);
  if (last?.role !== 'tool') return undefined;
  for (const part of last.content) {
    if (part.type !== 'tool-result') continue;
    const { output } = part;
    if (output.type === 'execution-denied') return `Invoice not sent: ${output.reason ?? 'refused'}`;
    if (output.type === 'text') return `send_invoice: ${output.value}`;
    if (output.type === 'json') return `send_invoice: ${typeof output.value === 'string' ? output.value : JSON.stringify(output.value)}`;
  }
  return undefined;
}
