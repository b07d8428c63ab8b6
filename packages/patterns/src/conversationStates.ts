import { AppendLog } from './AppendLog';
import { type ConversationState, foldedFrom, foldedOf, line, type PostedMessage, stateOf } from './ConversationState';
import type { ConversationMessage } from './ConversationState';

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
  return stateOf(
    { topic, participants: [...participants], round: 0, roundComplete: false, lastSpeaker: undefined, counts: Object.fromEntries(participants.map((id) => [id, 0])) },
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
  // Own keys only: a speaker named `constructor` or `__proto__` must not read Object.prototype.
  const spoken = (Object.hasOwn(state.counts, posted.speaker) ? (state.counts[posted.speaker] as number) : 0) + 1;
  const counts = { ...state.counts, [posted.speaker]: spoken };
  let round = Number.POSITIVE_INFINITY;
  for (const id of state.participants) round = Math.min(round, Object.hasOwn(counts, id) ? (counts[id] as number) : 0);
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
  return foldedOf(state)?.transcript ?? state.messages.map(line).join('\n');
}
