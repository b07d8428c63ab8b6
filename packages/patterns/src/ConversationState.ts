/**
 * A message as a participant posts it on the conversation channel.
 *
 * @remarks
 * `speaker` must be a participant id for the message to count towards rounds; `at` is scheduler time
 * (the run's scheduler in a pattern).
 *
 * @example
 * ```ts
 * import { asyncScheduler } from 'rxjs';
 * import { StreamingChannel } from '@rxagents/streaming';
 * import type { PostedMessage } from '@rxagents/patterns';
 *
 * // A moderator steps into a running conversation: whatever is posted on the channel is in the transcript.
 * const channel = StreamingChannel.create<PostedMessage>({ id: 'planning' });
 * channel.emit({ speaker: 'moderator', content: 'Five minutes left, please converge.', at: asyncScheduler.now() });
 * ```
 */
export interface PostedMessage {
  /** The speaker's participant id. */
  readonly speaker: string;
  /** What was said. */
  readonly content: string;
  /** Scheduler time the reply was complete. */
  readonly at: number;
}

/**
 * A message once folded into a {@link ConversationState}: numbered, with the round it belongs to.
 *
 * @example
 * ```ts
 * import { ConversationState, type ConversationMessage } from '@rxagents/patterns';
 *
 * let state = ConversationState.initial('Pricing', ['alice', 'bob']);
 * state = ConversationState.fold(state, { speaker: 'alice', content: 'Raise it.', at: 0 });
 * state = ConversationState.fold(state, { speaker: 'alice', content: 'Really.', at: 1 });
 * const label = (m: ConversationMessage): string => `#${m.index} ${m.speaker}, round ${m.round}: ${m.content}`;
 * console.log(state.messages.map(label)); // [ '#0 alice, round 1: Raise it.', '#1 alice, round 2: Really.' ]
 * ```
 */
export interface ConversationMessage extends PostedMessage {
  /** Position in the transcript, from 0. */
  readonly index: number;
  /** The speaker's round: 1 for their first contribution, 2 for the second, ... */
  readonly round: number;
}

/**
 * The projection of a conversation: what every participant and observer sees.
 *
 * @remarks
 * It is a fold of the channel's messages ({@link ConversationState.fold}, used with `scan`), never
 * mutated: each message gives a new snapshot. `round` counts *completed* rounds, the fewest
 * contributions any participant has made, so it advances when everybody has spoken once more
 * (after three turns of a three-agent round robin, after one turn of a free-for-all). `roundComplete`
 * says whether the last message completed a round; judge-based termination looks at it.
 *
 * @example
 * ```ts
 * import { ConversationState } from '@rxagents/patterns';
 *
 * let state = ConversationState.initial('Tabs or spaces?', ['alice', 'bob']);
 * state = ConversationState.fold(state, { speaker: 'alice', content: 'Tabs.', at: 0 });
 * state = ConversationState.fold(state, { speaker: 'bob', content: 'Spaces.', at: 5 });
 * console.log(state.round, state.roundComplete, state.lastSpeaker); // 1 true bob
 * ```
 */
export interface ConversationState {
  /** What the conversation is about: the run's input. */
  readonly topic: string;
  /** Participant ids, in declaration order. */
  readonly participants: readonly string[];
  /** The transcript, oldest first. */
  readonly messages: readonly ConversationMessage[];
  /** Completed rounds. */
  readonly round: number;
  /** Whether the last message completed a round. */
  readonly roundComplete: boolean;
  /** Who spoke last, `undefined` before the first message. */
  readonly lastSpeaker: string | undefined;
  /** Contributions per participant id. */
  readonly counts: Readonly<Record<string, number>>;
}

/** Builds and folds {@link ConversationState} snapshots. */
export const ConversationState = {
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
  initial(topic: string, participants: readonly string[]): ConversationState {
    return {
      topic,
      participants: [...participants],
      messages: [],
      round: 0,
      roundComplete: false,
      lastSpeaker: undefined,
      counts: Object.fromEntries(participants.map((id) => [id, 0])),
    };
  },

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
  fold(state: ConversationState, posted: PostedMessage): ConversationState {
    // Own keys only: a speaker named `constructor` or `__proto__` must not read Object.prototype.
    const spoken = (Object.hasOwn(state.counts, posted.speaker) ? (state.counts[posted.speaker] as number) : 0) + 1;
    const counts = { ...state.counts, [posted.speaker]: spoken };
    let round = Number.POSITIVE_INFINITY;
    for (const id of state.participants) round = Math.min(round, Object.hasOwn(counts, id) ? (counts[id] as number) : 0);
    if (!Number.isFinite(round)) round = 0;
    const message: ConversationMessage = { index: state.messages.length, speaker: posted.speaker, content: posted.content, at: posted.at, round: spoken };
    return {
      ...state,
      messages: [...state.messages, message],
      round,
      roundComplete: round > state.round,
      lastSpeaker: posted.speaker,
      counts,
    };
  },

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
  transcript(state: ConversationState): string {
    return state.messages.map((message) => `${message.speaker}: ${message.content}`).join('\n');
  },
} as const;
