/** The role of a {@link Message} in a conversation, as chat-completion APIs name them. */
export type MessageRole = 'system' | 'user' | 'assistant' | 'tool';

/** A tool call requested by an assistant message. */
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
