/**
 * The role of a {@link Message} in a conversation, as chat-completion APIs name them.
 *
 * @remarks
 * `system` sets instructions, `user` and `assistant` are the two speakers, and `tool` carries a tool's
 * result back to the model (with {@link Message.toolCallId}).
 *
 * @example
 * ```ts
 * import type { Message, MessageRole } from '@rxagents/core';
 *
 * const spokenBy = (history: readonly Message[], role: MessageRole): string[] =>
 *   history.filter((message) => message.role === role).map((message) => message.content);
 * console.log(spokenBy([{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello' }], 'user')); // ['Hi']
 * ```
 */
export type MessageRole = 'system' | 'user' | 'assistant' | 'tool';

/**
 * A tool call requested by an assistant message.
 *
 * @remarks
 * It sits in the assistant message's {@link Message.toolCalls}; the answer is a `tool` message whose
 * `toolCallId` repeats the call's `id`. `arguments` stays a JSON string: parse it yourself.
 *
 * @example
 * ```ts
 * import type { Message, ToolCall } from '@rxagents/core';
 *
 * const call: ToolCall = { id: 'call_1', name: 'transfer_to_billing', arguments: '{"reason":"refund"}' };
 * const history: Message[] = [
 *   { role: 'assistant', content: '', toolCalls: [call] },
 *   { role: 'tool', content: 'Transferred to Billing', toolCallId: call.id },
 * ];
 * console.log(JSON.parse(call.arguments).reason); // refund
 * ```
 */
export interface ToolCall {
  /** Provider-assigned id, echoed by the answering `tool` message's `toolCallId`. */
  readonly id: string;
  /** The tool's name, for example `transfer_to_billing`. */
  readonly name: string;
  /** The arguments as a JSON string, exactly as the model produced them. */
  readonly arguments: string;
}

/**
 * One message of conversation history, in the shape chat-completion APIs share.
 *
 * @example
 * ```ts
 * import type { Message } from '@rxagents/core';
 *
 * const history: Message[] = [
 *   { role: 'system', content: 'You handle billing questions.' },
 *   { role: 'user', content: 'Why was I charged twice?' },
 * ];
 * ```
 */
export interface Message {
  readonly role: MessageRole;
  readonly content: string;
  /** The speaker's name, when several share a role. */
  readonly name?: string;
  /** Tool calls requested by an `assistant` message. */
  readonly toolCalls?: readonly ToolCall[];
  /** For a `tool` message: the id of the call it answers. */
  readonly toolCallId?: string;
}
