import { type ConversationState, messageCount } from './ConversationState';
import * as ConversationStates from './conversationStates';
import { checkConversationState, checkSpeaker } from './checkConversationState';

/**
 * Builds what a participant is asked on its turn, from the conversation so far.
 *
 * @remarks
 * The `prompt` option of a debate and of a `ConversationOrchestrator`; the default is {@link conversationPrompt}.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { ConversationState, Patterns, type ConversationPrompt } from '@rxagents/patterns';
 *
 * // Only the last two messages, to keep long debates within the context window.
 * const recent: ConversationPrompt = (state, speaker) =>
 *   `Topic: ${state.topic}\n${ConversationState.transcript({ ...state, messages: state.messages.slice(-2) })}\nYou are ${speaker}; reply briefly.`;
 * const debaters = [defineAgent('pro', async () => 'Yes.'), defineAgent('con', async () => 'No.')];
 * const debate = Patterns.debate({ agents: debaters, prompt: recent });
 * ```
 */
export type ConversationPrompt = (state: ConversationState, speaker: string) => string;

/**
 * The default turn prompt: the topic, the participants, the transcript so far, and whose turn it is.
 *
 * @remarks
 * The same function builds the prompt in a direct run (from the driver's state) and over a channel
 * (from the channel's projection), so a scripted debate reads the same both ways. Replace it with the
 * `prompt` option of a debate or a `ConversationOrchestrator`.
 *
 * @example
 * ```ts
 * import { ConversationState, conversationPrompt } from '@rxagents/patterns';
 *
 * const state = ConversationState.initial('Should we rewrite it in Rust?', ['optimist', 'skeptic']);
 * console.log(conversationPrompt(state, 'optimist'));
 * ```
 */
export const conversationPrompt: ConversationPrompt = (state, speaker) => {
  checkConversationState('conversationPrompt', state);
  checkSpeaker('conversationPrompt', 'speaker', speaker);
  const transcript = messageCount(state) === 0 ? '(nobody has spoken yet)' : ConversationStates.transcript(state);
  const round = ConversationStates.contributions(state, speaker) + 1;
  // Joined with `+`, not Array.join: the transcript stays a shared string, so a turn costs O(1), not O(transcript).
  const head = `Topic: ${state.topic}\nParticipants: ${state.participants.join(', ')}\nTranscript:\n`;
  return head + transcript + `\nYou are ${speaker}. Round ${round}: give your contribution.`;
};
