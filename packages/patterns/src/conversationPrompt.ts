import type { ConversationState } from './ConversationState';

/** Builds what a participant is asked on its turn, from the conversation so far. */
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
  const transcript = state.messages.length === 0 ? '(nobody has spoken yet)' : state.messages.map((m) => `${m.speaker}: ${m.content}`).join('\n');
  const round = (state.counts[speaker] ?? 0) + 1;
  return [
    `Topic: ${state.topic}`,
    `Participants: ${state.participants.join(', ')}`,
    'Transcript:',
    transcript,
    `You are ${speaker}. Round ${round}: give your contribution.`,
  ].join('\n');
};
