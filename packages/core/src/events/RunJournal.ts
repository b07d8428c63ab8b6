import type { Subscriber } from 'rxjs';
import type { SerializedError } from './SerializedError';

/**
 * Where the next child of a node of a durable run goes, and what the run knows of that place: carried by
 * {@link RunContext.journal} in a run started with a store. You never construct one.
 *
 * @remarks
 * A durable run names every node by its place: the root is `run`, and each agent call or nested run made
 * under a node gets a segment (its ordinal among that node's children, or a name a primitive gives with
 * {@link namedPlace}). A context copied with `{ ...run }` keeps its journal, so its children count as
 * the same node's. Its members are the toolkit's own: do not call them.
 *
 * @example
 * ```ts
 * import type { RunContext, RunJournal } from '@rxagents/core';
 *
 * const isDurable = (run: RunContext | undefined): boolean => run?.journal !== undefined;
 * const none: RunJournal | undefined = undefined;
 * console.log(isDurable(undefined), none); // false undefined
 * ```
 */
export class RunJournal {
  /** @internal */
  readonly host: JournalHost;
  /** @internal The node's id (its place path with attempts), `null` above the root. */
  readonly callId: string | null;
  /** @internal The node's place key (its path without attempts). */
  readonly placeKey: string;
  readonly #children: ChildCounters;
  readonly #name: string | undefined;

  /** @internal */
  constructor(host: JournalHost, callId: string | null, placeKey: string, name?: string, children?: ChildCounters) {
    this.host = host;
    this.callId = callId;
    this.placeKey = placeKey;
    this.#name = name;
    this.#children = children ?? { ordinal: 0, named: undefined };
  }

  /** @internal The segment of the next child made through this context. */
  nextSegment(): string {
    const counters = this.#children;
    const name = this.#name;
    if (name === undefined) return String(counters.ordinal++);
    const named = (counters.named ??= new Map());
    const count = named.get(name) ?? 0;
    named.set(name, count + 1);
    return count === 0 ? name : `${name}:${count}`;
  }

  /** @internal The journal of a child node. */
  child(callId: string, placeKey: string): RunJournal {
    return new RunJournal(this.host, callId, placeKey);
  }

  /** @internal The same node, whose next children are named `name` (already escaped and prefixed). */
  named(segment: string): RunJournal {
    return new RunJournal(this.host, this.callId, this.placeKey, segment, this.#children);
  }
}

/** @internal How many children a node made, by ordinal and by name. */
interface ChildCounters {
  ordinal: number;
  named: Map<string, number> | undefined;
}

/** @internal A call that runs live at its place. */
export interface LiveCallPlace {
  readonly callId: string;
  readonly journal: RunJournal;
  readonly idempotencyKey: string;
}

/** @internal An interrupt asked at its place: its node id, and its id (the recorded one when it is asked again). */
export interface LiveInterruptPlace {
  readonly callId: string;
  readonly interruptId: string;
}

/** @internal What a resumed run hands an interrupt whose end the journal holds. */
export interface RecordedInterruptEnd {
  readonly answer: unknown;
  readonly hasAnswer: boolean;
  readonly error: SerializedError | undefined;
  /** Set when the interrupt is said again under a node that runs again: its new place. */
  readonly resay: LiveInterruptPlace | undefined;
}

/** @internal A nested run's place. */
export interface NodePlace {
  readonly callId: string;
  readonly journal: RunJournal;
}

/** @internal What a durable run answers the nodes made in it. */
export interface JournalHost {
  /**
   * Places a call: a live place, or `undefined` when the run took the call over (replayed it from the
   * journal into `subscriber`, or holds it because the run stopped). `run` is the call's `RunContext`
   * (typed `object` here so that this module and `RunContext` do not import each other).
   */
  enterCall(run: object, at: RunJournal, agentId: string, input: string, subscriber: Subscriber<string>): LiveCallPlace | undefined;
  /** Places a nested run. */
  enterNode(at: RunJournal, name: string): NodePlace;
  /**
   * Places an interrupt: a live place (to ask, with the recorded id when the journal shows it asked and
   * unanswered), or `undefined` when the run took it over (`replayed` gets its recorded end at its
   * turn, or never, when the run stopped). `request` is an `InterruptRequest`.
   */
  enterInterrupt(at: RunJournal, request: object, replayed: (end: RecordedInterruptEnd) => void): LiveInterruptPlace | undefined;
}
