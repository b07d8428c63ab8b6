import { z } from 'zod';
import { ConfigError, configRules, parseConfig, type Message } from '@rxagents/core';

/**
 * What a handoff condition looks at: the input, the history, and the call's metadata.
 *
 * @example
 * ```ts
 * import type { HandoffConditionContext } from '@rxagents/handoff';
 *
 * const context: HandoffConditionContext = { input: 'Where is my refund?', messages: [], metadata: { tier: 'vip' } };
 * ```
 */
export interface HandoffConditionContext {
  readonly input: string;
  readonly messages: readonly Message[];
  readonly metadata: Readonly<Record<string, unknown>>;
}

/**
 * Decides whether a handoff applies; a routing agent takes the first handoff whose condition matches.
 *
 * @example
 * ```ts
 * import type { HandoffCondition } from '@rxagents/handoff';
 *
 * const longQuestions: HandoffCondition = ({ input }) => input.length > 200;
 * ```
 */
export type HandoffCondition = (context: HandoffConditionContext) => boolean;

const TopicsSchema = z.strictObject({ topics: z.array(configRules.id(), { error: 'must be an array of words' }) });

/**
 * Ready-made {@link HandoffCondition}s: `topic`, `metadata`, `always`, `never`, `and`, `or`.
 *
 * @remarks
 * `topic(words)` matches when the input or the last user message contains any word, ignoring case, on
 * word boundaries (so `refund` matches "Refund please" and "refunds", not "prefund"). `metadata(key,
 * value)` matches when the call's metadata has that value (`Object.is`; only its own keys count, so
 * `metadata('toString', undefined)` matches a call without that key). `and`/`or` combine conditions.
 * `topic` throws a `ConfigError` unless `words` is an array of non-blank strings: an empty word would
 * match every input.
 *
 * @example
 * ```ts
 * import { handoffFilters } from '@rxagents/handoff';
 *
 * const billingTopic = handoffFilters.topic(['invoice', 'payment', 'refund']);
 * console.log(billingTopic({ input: 'A question about my invoice', messages: [], metadata: {} })); // true
 * const vipBilling = handoffFilters.and(billingTopic, handoffFilters.metadata('tier', 'vip'));
 * console.log(vipBilling({ input: 'invoice', messages: [], metadata: { tier: 'free' } })); // false
 * ```
 */
export const handoffFilters = Object.freeze({
  /** Matches when the input (or the last user message) mentions any of `topics`. */
  topic(topics: readonly string[]): HandoffCondition {
    parseConfig(TopicsSchema, { topics }, 'handoffFilters.topic');
    const patterns = topics.map((topic) => new RegExp(`(^|[^\\p{L}\\p{N}])${escape(topic)}`, 'iu'));
    return ({ input, messages }) => {
      const lastUser = findLastUser(messages);
      return patterns.some((pattern) => pattern.test(input) || (lastUser !== undefined && pattern.test(lastUser)));
    };
  },
  /** Matches when `metadata[key]` is `value`. */
  metadata(key: string, value: unknown): HandoffCondition {
    if (typeof key !== 'string') throw new ConfigError('handoffFilters.metadata', [{ path: 'key', rule: 'must be a string', received: key }]);
    return ({ metadata }) => Object.is(Object.hasOwn(metadata, key) ? metadata[key] : undefined, value);
  },
  /** Always matches. */
  always(): HandoffCondition {
    return () => true;
  },
  /** Never matches. */
  never(): HandoffCondition {
    return () => false;
  },
  /** Matches when every condition matches. */
  and(...conditions: readonly HandoffCondition[]): HandoffCondition {
    checkConditions('handoffFilters.and', conditions);
    return (context) => conditions.every((condition) => condition(context));
  },
  /** Matches when any condition matches. */
  or(...conditions: readonly HandoffCondition[]): HandoffCondition {
    checkConditions('handoffFilters.or', conditions);
    return (context) => conditions.some((condition) => condition(context));
  },
});

/** Refuses a condition that is not a function when the combination is built, not when a call first reaches it. */
function checkConditions(subject: string, conditions: readonly unknown[]): void {
  const index = conditions.findIndex((condition) => typeof condition !== 'function');
  if (index >= 0) throw new ConfigError(subject, [{ path: String(index), rule: 'must be a condition (a function)', received: conditions[index] }]);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function findLastUser(messages: readonly Message[]): string | undefined {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index] as Message;
    if (message.role === 'user') return message.content;
  }
  return undefined;
}
