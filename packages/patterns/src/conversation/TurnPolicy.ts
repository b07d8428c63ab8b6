import type { ConversationState } from './ConversationState';

/**
 * Decides who speaks next in a conversation.
 *
 * @remarks
 * `next(state)` returns the ids of the participants who speak in the next turn: one for a round robin,
 * every participant at once for a free-for-all (they answer concurrently, each seeing the same
 * transcript). An empty list ends the conversation with status `completed`. A returned id that is not a
 * participant fails the run with `UnknownParticipantError`. Policies must be pure functions of the state;
 * build one with {@link TurnPolicy.custom}.
 *
 * @example
 * ```ts
 * import { ConversationState, TurnPolicy } from '@rxagents/patterns';
 *
 * const policy = TurnPolicy.roundRobin();
 * const state = ConversationState.initial('topic', ['a', 'b', 'c']);
 * console.log(policy.next(state)); // [ 'a' ]
 * ```
 */
export interface TurnPolicy {
  /** A short name for logs and results, e.g. `round-robin`. */
  readonly name: string;
  /** The ids of those who speak next; empty to end the conversation. */
  next(state: ConversationState): readonly string[];
}
