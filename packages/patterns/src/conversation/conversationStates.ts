import { ConfigError } from '@rxagents/core';
import { AppendLog } from './AppendLog';
import { checkConversationState, checkSpeaker } from './checkConversationState';
import { type ConversationState, foldedFrom, foldedOf, line, type PostedMessage, stateOf } from './ConversationState';
import type { ConversationMessage, SpeakerCount } from './ConversationState';

// Builds and folds ConversationState snapshots; exported from the package as the module namespace `ConversationState`.

/**
 * The state before anybody has spoken.
 *
 * @example
 * ```ts
 * import { ConversationState } from '@rxagents/patterns';
 *
 * console.log(ConversationState.initial('Pricing', ['a', 'b']).round); // 0
 * ```
 */
export function initial(topic: string, participants: readonly string[]): ConversationState {
  checkSpeaker('ConversationState.initial', 'topic', topic);
  if (!Array.isArray(participants as unknown) || !participants.every((id) => typeof id === 'string')) {
    throw new ConfigError('ConversationState.initial', [{ path: 'participants', rule: 'must be an array of participant ids (strings)', received: participants }]);
  }
  return stateOf(
    { topic, participants: [...participants], round: 0, roundComplete: false, lastSpeaker: undefined, counts: [...new Set(participants)].map((speaker) => ({ speaker, count: 0 })) },
    { log: AppendLog.empty(), transcript: '', extras: undefined },
  );
}

/**
 * The next snapshot after `posted`: the reducer to `scan` a channel of {@link PostedMessage}s with.
 *
 * @example
 * ```ts
 * import { ConversationState, type PostedMessage } from '@rxagents/patterns';
 * import { from, scan } from 'rxjs';
 *
 * const posted: PostedMessage[] = [{ speaker: 'a', content: 'hi', at: 0 }];
 * from(posted)
 *   .pipe(scan(ConversationState.fold, ConversationState.initial('greeting', ['a'])))
 *   .subscribe((state) => console.log(state.messages.length)); // 1
 * ```
 */
export function fold(state: ConversationState, posted: PostedMessage): ConversationState {
  checkConversationState('ConversationState.fold', state);
  if (typeof posted !== 'object' || posted === null || typeof posted.speaker !== 'string' || typeof posted.content !== 'string') {
    throw new ConfigError('ConversationState.fold', [{ path: 'posted', rule: 'must be a posted message ({ speaker, content, at })', received: posted }]);
  }
  const spoken = contributions(state, posted.speaker) + 1;
  const counts = withCount(state.counts, posted.speaker, spoken);
  let round = Number.POSITIVE_INFINITY;
  for (const id of state.participants) round = Math.min(round, countIn(counts, id));
  if (!Number.isFinite(round)) round = 0;
  const previous = foldedOf(state) ?? foldedFrom(state);
  const message: ConversationMessage = { index: previous.log.length, speaker: posted.speaker, content: posted.content, at: posted.at, round: spoken };
  const transcript = previous.log.length === 0 ? line(message) : `${previous.transcript}\n${line(message)}`;
  return stateOf(
    { topic: state.topic, participants: state.participants, round, roundComplete: round > state.round, lastSpeaker: posted.speaker, counts },
    { log: previous.log.append(message), transcript, extras: previous.extras },
  );
}

/**
 * How many messages `speaker` has posted in `state`: 0 for a participant who has not spoken yet and for a
 * name nobody posted under.
 *
 * @example
 * ```ts
 * import { ConversationState } from '@rxagents/patterns';
 *
 * const state = ConversationState.fold(ConversationState.initial('t', ['a', 'b']), { speaker: 'a', content: 'hi', at: 0 });
 * console.log(ConversationState.contributions(state, 'a'), ConversationState.contributions(state, 'b')); // 1 0
 * ```
 */
export function contributions(state: ConversationState, speaker: string): number {
  checkConversationState('ConversationState.contributions', state);
  checkSpeaker('ConversationState.contributions', 'speaker', speaker);
  return countIn(state.counts, speaker);
}

// A linear search: a conversation has a handful of speakers, and a list keeps speaker names out of object keys.
function countIn(counts: readonly SpeakerCount[], speaker: string): number {
  for (const entry of counts) if (entry.speaker === speaker) return entry.count;
  return 0;
}

/** `counts` with `speaker`'s count set to `count`: the same order, a speaker new to it last. */
function withCount(counts: readonly SpeakerCount[], speaker: string, count: number): readonly SpeakerCount[] {
  const next: SpeakerCount[] = [];
  let found = false;
  for (const entry of counts) {
    if (entry.speaker === speaker) {
      found = true;
      next.push({ speaker, count });
    } else next.push(entry);
  }
  if (!found) next.push({ speaker, count });
  return next;
}

/**
 * The transcript as `speaker: content` lines, the form prompts and judges read.
 *
 * @example
 * ```ts
 * import { ConversationState } from '@rxagents/patterns';
 *
 * const state = ConversationState.fold(ConversationState.initial('t', ['a']), { speaker: 'a', content: 'hi', at: 0 });
 * console.log(ConversationState.transcript(state)); // a: hi
 * ```
 */
export function transcript(state: ConversationState): string {
  checkConversationState('ConversationState.transcript', state);
  return foldedOf(state)?.transcript ?? state.messages.map(line).join('\n');
}
