import { configRules, parseConfig } from '@rxagents/core';
import { z } from 'zod';
import { type ConversationMessage, type ConversationState, messageAt, messageCount } from './ConversationState';
import type { TurnPolicy } from './TurnPolicy';

// The built-in TurnPolicy factories, exported from the package as the module namespace `TurnPolicy`.

const WORD_BEFORE = /[\p{L}\p{N}_]$/u;
const WORD_AFTER = /^[\p{L}\p{N}_]/u;

/**
 * The participants `content` addresses with `@id`, in order of mention: each `@` (not inside a word, so
 * not an e-mail address) is matched against the ids, longest first, and a match must end where a word
 * ends (`@qa.` names `qa`, `@qabot` does not). Ids with spaces or any script work (`@data analyst`, `@аня`).
 */
function mentions(content: string, participants: readonly string[], speaker: string): Set<string> {
  const named = new Set<string>();
  const ids = [...participants].sort((a, b) => b.length - a.length);
  for (let at = content.indexOf('@'); at >= 0; at = content.indexOf('@', at + 1)) {
    if (WORD_BEFORE.test(content.slice(Math.max(0, at - 2), at))) continue;
    const id = ids.find((candidate) => candidate.length > 0 && content.startsWith(candidate, at + 1) && !WORD_AFTER.test(content.slice(at + 1 + candidate.length, at + 3 + candidate.length)));
    if (id !== undefined && id !== speaker) named.add(id);
  }
  return named;
}

const TurnPolicyRule = z.custom<TurnPolicy>((v) => typeof (v as TurnPolicy | undefined)?.next === 'function' && typeof (v as TurnPolicy).name === 'string', {
  error: 'must be a TurnPolicy (with a name and next())',
});
const CustomPolicyArguments = z.strictObject({ name: configRules.id(), next: configRules.function() });

/**
 * Each participant in declaration order, one per turn, after the participant who spoke last (a message
 * from someone else, a person joining in, does not restart the order).
 *
 * @example
 * ```ts
 * import { TurnPolicy } from '@rxagents/patterns';
 *
 * const debateTurns = TurnPolicy.roundRobin();
 * ```
 */
export function roundRobin(): TurnPolicy {
  return {
    name: 'round-robin',
    next: (state) => {
      const { participants } = state;
      if (participants.length === 0) return [];
      // After the last participant who spoke: a message from someone else (a person joining in) does not
      // restart the order, which would give the first participant every turn and never complete a round.
      let last = -1;
      for (let index = messageCount(state) - 1; index >= 0 && last < 0; index -= 1) last = participants.indexOf((messageAt(state, index) as ConversationMessage).speaker);
      return [participants[(last + 1) % participants.length] as string];
    },
  };
}

/**
 * Everybody at once: each turn, every participant answers concurrently.
 *
 * @example
 * ```ts
 * import { ConversationState, TurnPolicy } from '@rxagents/patterns';
 *
 * console.log(TurnPolicy.freeForAll().next(ConversationState.initial('t', ['a', 'b']))); // [ 'a', 'b' ]
 * ```
 */
export function freeForAll(): TurnPolicy {
  return { name: 'free-for-all', next: (state) => state.participants };
}

/**
 * Whoever the last message addresses with `@id` answers; with no address, `fallback` decides.
 *
 * @remarks
 * Mentions of unknown ids and of the speaker themself are ignored. The default fallback is a round
 * robin, so a conversation never stalls on a message that addresses nobody.
 *
 * @example
 * ```ts
 * import { ConversationState, TurnPolicy } from '@rxagents/patterns';
 *
 * const state = ConversationState.fold(ConversationState.initial('t', ['pm', 'dev', 'qa']), {
 *   speaker: 'pm',
 *   content: '@qa can you check the release?',
 *   at: 0,
 * });
 * console.log(TurnPolicy.addressed().next(state)); // [ 'qa' ]
 * ```
 */
export function addressed(fallback: TurnPolicy = roundRobin()): TurnPolicy {
  parseConfig(TurnPolicyRule, fallback, 'TurnPolicy.addressed fallback');
  return {
    name: 'addressed',
    next: (state) => {
      const last = state.messages[state.messages.length - 1];
      if (last === undefined) return fallback.next(state);
      const named = mentions(last.content, state.participants, last.speaker);
      return named.size > 0 ? [...named] : fallback.next(state);
    },
  };
}

/**
 * A policy from your own function of the state.
 *
 * @example
 * ```ts
 * import { TurnPolicy } from '@rxagents/patterns';
 *
 * // The moderator speaks after everybody else.
 * const moderated = TurnPolicy.custom('moderated', (state) =>
 *   state.lastSpeaker === 'moderator' || state.lastSpeaker === undefined ? ['alice', 'bob'] : ['moderator'],
 * );
 * ```
 */
export function custom(name: string, next: (state: ConversationState) => readonly string[]): TurnPolicy {
  parseConfig(CustomPolicyArguments, { name, next }, 'TurnPolicy.custom');
  return { name, next };
}
