import { z } from 'zod';
import { ConfigError, configRules, parseConfig, preview, type Message } from '@rxagents/core';
import { HandoffContractError } from '../errors/HandoffContractError';
import { HandoffRequestSchema } from '../handoff/HandoffRequest';
import { signedCountRule } from '../internal/rules';

/**
 * How much history a handoff's target sees: nothing, the last N messages, the last 3, or everything.
 *
 * @example
 * ```ts
 * import type { ContextPolicy } from '@rxagents/handoff';
 *
 * const acrossTrustBoundary: ContextPolicy = 'none';
 * ```
 */
export type ContextPolicy = 'none' | 'last_n' | 'summary' | 'full';

/**
 * Counts the tokens of one message.
 *
 * @example
 * ```ts
 * import type { TokenCounter } from '@rxagents/handoff';
 *
 * // A rough word-based count, for models whose tokens are closer to words.
 * const byWords: TokenCounter = (message) => message.content.split(/\s+/).filter(Boolean).length;
 * ```
 */
export type TokenCounter = (message: Message) => number;

/**
 * The settings {@link selectHandoffMessages} reads (a subset of {@link HandoffConfig}).
 *
 * @example
 * ```ts
 * import type { HandoffMessageSelection } from '@rxagents/handoff';
 *
 * const selection: HandoffMessageSelection = { contextPolicy: 'last_n', maxContextMessages: 6, maxContextTokens: 2000 };
 * ```
 */
export interface HandoffMessageSelection {
  /** Defaults to `'summary'`. */
  readonly contextPolicy?: ContextPolicy;
  /** Slice size for `last_n`; `<= 0` keeps everything. Defaults to 10. */
  readonly maxContextMessages?: number;
  /** Token ceiling applied last, dropping the oldest first; `<= 0` disables. Defaults to 4000. */
  readonly maxContextTokens?: number;
  /** Keep `system` messages regardless of slice or budget. Defaults to `true`. */
  readonly preserveSystem?: boolean;
  /** Defaults to {@link estimateTokens} (about 4 characters a token). */
  readonly countTokens?: TokenCounter;
}

/**
 * How many messages the `summary` policy keeps (hard-coded, as in PraisonAI).
 *
 * @example
 * ```ts
 * import { SUMMARY_MESSAGE_COUNT } from '@rxagents/handoff';
 *
 * console.log(SUMMARY_MESSAGE_COUNT); // 3
 * ```
 */
export const SUMMARY_MESSAGE_COUNT = 3;

/**
 * The default token counter: about 4 characters a token, at least 1 per message.
 *
 * @example
 * ```ts
 * import { estimateTokens } from '@rxagents/handoff';
 *
 * console.log(estimateTokens({ role: 'user', content: 'x'.repeat(40) })); // 10
 * ```
 */
export function estimateTokens(message: Message): number {
  if (typeof message?.content !== 'string') throw new ConfigError('estimateTokens', [{ path: 'message', rule: 'must be a message with a string content', received: message }]);
  return Math.max(1, Math.ceil(message.content.length / 4));
}

/**
 * Picks the messages a handoff's target sees: the standalone context selector.
 *
 * @remarks
 * First the policy: `none` gives nothing; `last_n` the last `maxContextMessages` (`<= 0` keeps all);
 * `summary` the last 3; `full` everything. With `preserveSystem` (the default), `system` messages outside
 * the slice are kept too, in their place. Then the token budget (`maxContextTokens > 0`): the oldest
 * messages are dropped until the rest fit, never a system message when `preserveSystem`, so a system
 * prompt larger than the budget is kept in full. Order is always preserved; the input is not changed.
 *
 * @throws {@link @rxagents/core!ConfigError | ConfigError} when `messages` is not an array of messages (a known
 * `role`, string `content`, as a handoff request's), or `config` has an unknown key or a bad value;
 * {@link HandoffContractError} when `countTokens` returns anything but a finite number of zero or more.
 *
 * @example
 * ```ts
 * import type { Message } from '@rxagents/core';
 * import { selectHandoffMessages } from '@rxagents/handoff';
 *
 * const history: Message[] = [
 *   { role: 'system', content: 'You are a helpful assistant' },
 *   { role: 'user', content: 'Hi' },
 *   { role: 'assistant', content: 'Hello!' },
 *   { role: 'user', content: 'Why was I charged twice?' },
 * ];
 * const picked = selectHandoffMessages(history, { contextPolicy: 'last_n', maxContextMessages: 1 });
 * console.log(picked.map((m) => m.role)); // [ 'system', 'user' ]
 * ```
 */
export function selectHandoffMessages(messages: readonly Message[], config: HandoffMessageSelection = {}): Message[] {
  parseConfig(MessagesSchema, { messages }, 'selectHandoffMessages');
  parseConfig(HandoffMessageSelectionSchema, config, 'selectHandoffMessages settings');
  return selectMessages(messages, config);
}

/**
 * The zod schema of {@link HandoffMessageSelection} (strict: an unknown key is a `ConfigError`).
 *
 * @example
 * ```ts
 * import { HandoffMessageSelectionSchema } from '@rxagents/handoff';
 *
 * console.log(HandoffMessageSelectionSchema.safeParse({ maxContextMessage: 1 }).success); // false
 * ```
 */
export const HandoffMessageSelectionSchema = z.strictObject({
  contextPolicy: z.enum(['none', 'last_n', 'summary', 'full']).optional(),
  maxContextMessages: signedCountRule().optional(),
  maxContextTokens: signedCountRule().optional(),
  preserveSystem: z.boolean({ error: 'must be a boolean' }).optional(),
  countTokens: configRules.function<TokenCounter>().optional(),
});

/** The history a handoff request may carry (`HandoffRequest.messages`), as an argument. */
const MessagesSchema = z.strictObject({ messages: HandoffRequestSchema.shape.messages.unwrap() });

/** {@link selectHandoffMessages} without the settings check, for a handoff whose config is already validated. */
export function selectMessages(messages: readonly Message[], config: HandoffMessageSelection): Message[] {
  const { contextPolicy = 'summary', maxContextMessages = 10, maxContextTokens = 4000, preserveSystem = true, countTokens = estimateTokens } = config;
  if (contextPolicy === 'none') return [];
  const keepFrom = sliceStart(messages.length, contextPolicy, maxContextMessages);
  const selected: Message[] = [];
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index] as Message;
    if (index >= keepFrom || (preserveSystem && message.role === 'system')) selected.push(message);
  }
  return maxContextTokens > 0 ? fitBudget(selected, maxContextTokens, preserveSystem, countTokens) : selected;
}

function sliceStart(length: number, policy: ContextPolicy, maxContextMessages: number): number {
  if (policy === 'full') return 0;
  const count = policy === 'summary' ? SUMMARY_MESSAGE_COUNT : maxContextMessages;
  return count <= 0 ? 0 : Math.max(0, length - count);
}

function fitBudget(messages: Message[], budget: number, preserveSystem: boolean, countTokens: TokenCounter): Message[] {
  const tokens = messages.map((message) => {
    const count: unknown = countTokens(message);
    if (typeof count !== 'number' || !(count >= 0) || count === Infinity) {
      throw new HandoffContractError('countTokens', `returned ${preview(count)}; it must return a finite number of zero or more`, count);
    }
    return count;
  });
  let total = tokens.reduce((sum, count) => sum + count, 0);
  if (total <= budget) return messages;
  const dropped = new Array<boolean>(messages.length).fill(false);
  for (let index = 0; index < messages.length && total > budget; index += 1) {
    if (preserveSystem && (messages[index] as Message).role === 'system') continue;
    dropped[index] = true;
    total -= tokens[index] as number;
  }
  return messages.filter((_, index) => !dropped[index]);
}
