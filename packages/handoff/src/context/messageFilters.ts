import { z } from 'zod';
import { parseConfig, type Message } from '@rxagents/core';
import { checkMessages, signedCountRule } from '../internal/rules';

/**
 * Transforms the history before a handoff selects its context (a handoff's `inputFilter`).
 *
 * @example
 * ```ts
 * import type { MessageFilter } from '@rxagents/handoff';
 *
 * const userOnly: MessageFilter = (messages) => messages.filter((message) => message.role === 'user');
 * ```
 */
export type MessageFilter = (messages: readonly Message[]) => Message[];

const KeepLastNSchema = z.strictObject({ n: signedCountRule() });

/**
 * Ready-made {@link MessageFilter}s: `removeToolCalls`, `keepLastN`, `removeSystemMessages`.
 *
 * @remarks
 * `removeToolCalls` drops `tool` messages and assistant messages that only request tools, and strips
 * the tool calls from assistant messages that also carry text. `keepLastN(n)` keeps the last `n`
 * messages (`n` an integer; a `ConfigError` otherwise, so a `NaN` cannot pass the whole history on).
 * `removeSystemMessages` drops `system` messages. None changes its input; given anything but an array of
 * messages, the filters throw a `ConfigError` naming `messages`.
 *
 * @example
 * ```ts
 * import type { Message } from '@rxagents/core';
 * import { messageFilters } from '@rxagents/handoff';
 *
 * const history: Message[] = [
 *   { role: 'system', content: 'Be brief' },
 *   { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'lookup', arguments: '{}' }] },
 *   { role: 'tool', content: '{"plan":"pro"}', toolCallId: 'c1' },
 *   { role: 'user', content: 'Thanks' },
 * ];
 * console.log(messageFilters.removeToolCalls(history).length); // 2
 * ```
 */
export const messageFilters = Object.freeze({
  /** Drops tool traffic: `tool` messages and tool calls. */
  removeToolCalls(messages: readonly Message[]): Message[] {
    checkMessages('messageFilters.removeToolCalls', messages);
    const kept: Message[] = [];
    for (const message of messages) {
      if (message.role === 'tool') continue;
      if (message.toolCalls !== undefined && message.toolCalls.length > 0) {
        if (message.content === '') continue;
        const { toolCalls: _dropped, ...rest } = message;
        kept.push(rest);
        continue;
      }
      kept.push(message);
    }
    return kept;
  },
  /** A filter that keeps the last `n` messages (`n <= 0` keeps none). */
  keepLastN(n: number): MessageFilter {
    parseConfig(KeepLastNSchema, { n }, 'messageFilters.keepLastN');
    return (messages) => (n <= 0 ? [] : messages.slice(-n));
  },
  /** Drops `system` messages. */
  removeSystemMessages(messages: readonly Message[]): Message[] {
    checkMessages('messageFilters.removeSystemMessages', messages);
    return messages.filter((message) => message.role !== 'system');
  },
});
