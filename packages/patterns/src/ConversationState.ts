import { AppendLog } from './AppendLog';

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
 * mutated: each message gives a new snapshot, in O(1): the snapshots of one conversation share one
 * append-only log, and each reads its own `messages` as a frozen array built on first read. `round`
 * counts *completed* rounds, the fewest contributions any participant has made, so it advances when
 * everybody has spoken once more
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
  /** The transcript, oldest first: a frozen array, built when first read (snapshots share one log, so folding a message is O(1)). */
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

/** What the package keeps beside each state it folds: the shared transcript log, its text, fields of a hand-made state. */
export interface Folded {
  readonly log: AppendLog<ConversationMessage>;
  /** The transcript text, built by appending (V8 joins such strings lazily, so this is O(1) per message). */
  readonly transcript: string;
  /** Own fields of a hand-made state beyond the interface's, carried into every later snapshot. */
  readonly extras: Readonly<Record<string, unknown>> | undefined;
}

const KNOWN = new Set(['topic', 'participants', 'messages', 'round', 'roundComplete', 'lastSpeaker', 'counts']);
export const folded = new WeakMap<ConversationState, Folded>();

export const line = (message: PostedMessage): string => `${message.speaker}: ${message.content}`;

/** The log and transcript of a state the package did not fold (one built by hand): built in O(messages), not kept. */
export function foldedFrom(state: ConversationState): Folded {
  const extraKeys = Object.keys(state).filter((key) => !KNOWN.has(key));
  const extras = extraKeys.length === 0 ? undefined : Object.fromEntries(extraKeys.map((key) => [key, (state as unknown as Record<string, unknown>)[key]]));
  return { log: AppendLog.of(state.messages), transcript: state.messages.map(line).join('\n'), extras };
}

/** A state whose `messages` is a view of `log`, built into a frozen array when first read. */
export function stateOf(fields: Omit<ConversationState, 'messages'>, entry: Folded): ConversationState {
  const { log } = entry;
  const state: ConversationState = {
    ...entry.extras,
    topic: fields.topic,
    participants: fields.participants,
    get messages() {
      return log.toArray();
    },
    round: fields.round,
    roundComplete: fields.roundComplete,
    lastSpeaker: fields.lastSpeaker,
    counts: fields.counts,
  };
  folded.set(state, entry);
  return state;
}

/** How many messages `state` holds, in O(1) for a state the package folded. */
export function messageCount(state: ConversationState): number {
  return folded.get(state)?.log.length ?? state.messages.length;
}

/** The newest message of `state`, in O(1) for a state the package folded. */
export function lastMessage(state: ConversationState): ConversationMessage | undefined {
  const entry = folded.get(state);
  return entry === undefined ? state.messages[state.messages.length - 1] : entry.log.last();
}

/** The message at `index` (from 0) of `state`, in O(1) for a state the package folded. */
export function messageAt(state: ConversationState, index: number): ConversationMessage | undefined {
  const entry = folded.get(state);
  return entry === undefined ? state.messages[index] : entry.log.at(index);
}
