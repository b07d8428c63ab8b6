import { AppendLog } from './AppendLog';
import { Marked } from './logView';

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
  /** Set on a run's own reply: the id of the call it answers (see {@link PostedReply}); absent on a message a person or a UI posts. */
  readonly replyTo?: string;
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
  /**
   * How many messages each speaker has posted: every participant (in declaration order, from 0), then
   * any other speaker (in the order they first spoke). A list, not an object keyed by speaker, so a
   * speaker named `__proto__` or `constructor` (names can come from a shared channel) is a name like any
   * other. Read one speaker's count with {@link ConversationState.contributions}.
   */
  readonly counts: readonly SpeakerCount[];
}

/**
 * One speaker's number of messages in a {@link ConversationState}.
 *
 * @example
 * ```ts
 * import { ConversationState, type SpeakerCount } from '@rxagents/patterns';
 *
 * const state = ConversationState.fold(ConversationState.initial('t', ['a', 'b']), { speaker: 'a', content: 'hi', at: 0 });
 * const counts: readonly SpeakerCount[] = state.counts;
 * console.log(counts); // [ { speaker: 'a', count: 1 }, { speaker: 'b', count: 0 } ]
 * ```
 */
export interface SpeakerCount {
  /** The speaker: a participant id, or the name another writer posted under. */
  readonly speaker: string;
  /** Messages posted under that name so far. */
  readonly count: number;
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

/**
 * Ties a state the package folded to its {@link Folded} log and text, in a private field added to the
 * state object itself (`new FoldedMark(state, entry)` marks `state`).
 *
 * @remarks
 * Not a `WeakMap` from states to entries: every message makes a state, and a `WeakMap` entry per state
 * kept the garbage collector busy (a third of a debate's time went to it). A private field is invisible
 * to spreading, `Object.keys`, `JSON.stringify` and equality checks, so a state still reads as the plain
 * object it is, and a copy (`{ ...state }`) carries no mark: it is read as a hand-made state, from its
 * own `messages`.
 */
class FoldedMark extends Marked {
  readonly #entry: Folded;

  constructor(state: ConversationState, entry: Folded) {
    super(state);
    this.#entry = entry;
  }

  static of(state: ConversationState): Folded | undefined {
    return #entry in state ? (state as unknown as FoldedMark).#entry : undefined;
  }
}

/** The log and text of a state the package folded, `undefined` for a state made by hand (or copied). */
export function foldedOf(state: ConversationState): Folded | undefined {
  return FoldedMark.of(state);
}

export const line = (message: PostedMessage): string => `${message.speaker}: ${message.content}`;

/** The log and transcript of a state the package did not fold (one built by hand): built in O(messages), not kept. */
export function foldedFrom(state: ConversationState): Folded {
  const extraKeys = Object.keys(state).filter((key) => !KNOWN.has(key));
  const extras = extraKeys.length === 0 ? undefined : Object.fromEntries(extraKeys.map((key) => [key, (state as unknown as Record<string, unknown>)[key]]));
  return { log: AppendLog.of(state.messages), transcript: state.messages.map(line).join('\n'), extras };
}

/**
 * `messages` of every folded state: one getter shared by all of them, reading the state's own log. An
 * object literal with a getter of its own (a new closure per state) is kept by V8 as a slow dictionary
 * object, ten times as costly to make; one shared getter keeps every state in one fast shape.
 */
const MESSAGES: PropertyDescriptor = {
  get(this: ConversationState): readonly ConversationMessage[] {
    return (FoldedMark.of(this) as Folded).log.toArray();
  },
  enumerable: true,
  configurable: true,
};

/** A state whose `messages` is a view of `entry.log`, built into a frozen array when first read. */
export function stateOf(fields: Omit<ConversationState, 'messages'>, entry: Folded): ConversationState {
  // The keys in the interface's order (after a hand-made state's own extra keys), as an object literal would have them.
  const state = (entry.extras === undefined ? { topic: fields.topic, participants: fields.participants } : { ...entry.extras, topic: fields.topic, participants: fields.participants }) as {
    -readonly [K in keyof ConversationState]: ConversationState[K];
  };
  Object.defineProperty(state, 'messages', MESSAGES);
  state.round = fields.round;
  state.roundComplete = fields.roundComplete;
  state.lastSpeaker = fields.lastSpeaker;
  state.counts = fields.counts;
  new FoldedMark(state, entry);
  return state;
}

/** How many messages `state` holds, in O(1) for a state the package folded. */
export function messageCount(state: ConversationState): number {
  return foldedOf(state)?.log.length ?? state.messages.length;
}

/** The newest message of `state`, in O(1) for a state the package folded. */
export function lastMessage(state: ConversationState): ConversationMessage | undefined {
  const entry = foldedOf(state);
  return entry === undefined ? state.messages[state.messages.length - 1] : entry.log.last();
}

/** The message at `index` (from 0) of `state`, in O(1) for a state the package folded. */
export function messageAt(state: ConversationState, index: number): ConversationMessage | undefined {
  const entry = foldedOf(state);
  return entry === undefined ? state.messages[index] : entry.log.at(index);
}
