import { ConfigError, type Message } from '@rxagents/core';
import type { ModelMessage } from 'ai';

/**
 * Converts rxagents {@link Message}s (the chat-completion shape) into AI SDK `ModelMessage`s.
 *
 * @remarks
 * `system`, `user` and plain `assistant` messages map one to one. An assistant message with `toolCalls`
 * becomes text plus `tool-call` parts (arguments parsed from their JSON string; kept as the raw string if
 * they do not parse). A `tool` message becomes a `tool-result` part; its tool name is looked up from the
 * assistant call it answers (`toolCallId`), falling back to its `name`. A `tool` message without a
 * `toolCallId` cannot be placed by any provider, so it is sent as a user message with the same content.
 * `name` has no AI SDK field and is dropped. A message of any other role (an OpenAI `developer` or
 * `function` message read from JSON) has no conversion and is a `ConfigError` naming it, as is a tool call
without a string `id`, `name` or `arguments` (`arguments: '{}'` for none).
 *
 * @param messages - Conversation history, oldest first.
 * @returns The same conversation, ready for `streamText({ messages })`.
 * @throws {@link @rxagents/core!ConfigError | ConfigError} when a message's role is not `system`, `user`, `assistant` or `tool`,
 *   or a tool call of an assistant message lacks a string `id`, `name` or `arguments`.
 *
 * @example
 * ```ts
 * import { toModelMessages } from '@rxagents/ai-sdk';
 *
 * const messages = toModelMessages([
 *   { role: 'user', content: 'Where is my invoice?' },
 *   { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'transfer_to_billing', arguments: '{}' }] },
 *   { role: 'tool', content: 'Transferred to Billing', toolCallId: 'c1' },
 * ]);
 * console.log(messages.map((message) => message.role)); // [ 'user', 'assistant', 'tool' ]
 * ```
 */
export function toModelMessages(messages: readonly Message[]): ModelMessage[] {
  if (!Array.isArray(messages as unknown)) throw new ConfigError('toModelMessages', [{ path: 'messages', rule: 'must be an array of messages', received: messages }]);
  const toolNames = new Map<string, string>();
  return messages.map((message, index): ModelMessage => {
    // Read safely: history often comes from JSON, where a message can be anything.
    const role: unknown = (message as Partial<Message> | null)?.role;
    switch (role) {
      case 'system':
        return { role: 'system', content: message.content };
      case 'user':
        return { role: 'user', content: message.content };
      case 'assistant': {
        const calls = message.toolCalls ?? [];
        if (calls.length === 0) return { role: 'assistant', content: message.content };
        calls.forEach((call, callIndex) => checkToolCall(call, `messages.${index}.toolCalls.${callIndex}`));
        for (const call of calls) toolNames.set(call.id, call.name);
        return {
          role: 'assistant',
          content: [
            ...(message.content === '' ? [] : [{ type: 'text' as const, text: message.content }]),
            ...calls.map((call) => ({ type: 'tool-call' as const, toolCallId: call.id, toolName: call.name, input: parseArguments(call.arguments) })),
          ],
        };
      }
      case 'tool': {
        if (message.toolCallId === undefined) return { role: 'user', content: message.content };
        return {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: message.toolCallId,
              toolName: toolNames.get(message.toolCallId) ?? message.name ?? 'unknown_tool',
              output: { type: 'text', value: message.content },
            },
          ],
        };
      }
      default:
        // Unconverted, it would reach `streamText` as `undefined` and fail there as a bare TypeError.
        throw new ConfigError('toModelMessages', [{ path: `messages.${index}.role`, rule: 'must be system, user, assistant or tool', received: role }]);
    }
  });
}

// The fields this conversion reads: history from JSON can miss any of them, and a missing one would fail
// later as a bare TypeError (`arguments`) or reach the provider as an unnamed tool call.
function checkToolCall(call: unknown, path: string): void {
  const fields = (typeof call === 'object' && call !== null ? call : {}) as Record<string, unknown>;
  const issues = (['id', 'name', 'arguments'] as const)
    .filter((field) => typeof fields[field] !== 'string')
    .map((field) => ({ path: `${path}.${field}`, rule: 'must be a string', received: fields[field] }));
  if (issues.length > 0) throw new ConfigError('toModelMessages', issues);
}

function parseArguments(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
