import { ConfigError } from '@rxagents/core';
import type { ConversationState } from './ConversationState';

/**
 * Refuses a `state` that is not a conversation state (one from `ConversationState.initial` or `fold`),
 * naming the argument; a cheap check, since a conversation's every message goes through it.
 */
export function checkConversationState(subject: string, state: unknown): void {
  const candidate = state as Partial<ConversationState> | null;
  if (typeof candidate !== 'object' || candidate === null || !Array.isArray(candidate.participants) || !Array.isArray(candidate.counts)) {
    throw new ConfigError(subject, [{ path: 'state', rule: 'must be a ConversationState (start from ConversationState.initial)', received: state }]);
  }
}

/** Refuses a `speaker` that is not a string, naming the argument. */
export function checkSpeaker(subject: string, path: string, speaker: unknown): void {
  if (typeof speaker !== 'string') throw new ConfigError(subject, [{ path, rule: 'must be a string', received: speaker }]);
}
