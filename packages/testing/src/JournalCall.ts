import type { SerializedError } from '@rxagents/core';

/**
 * One chunk of a recorded call: a `text-delta` of the journal, timed from its call's `call-start`.
 *
 * @example
 * ```ts
 * import type { JournalDelta } from '@rxagents/testing';
 *
 * const chunk: JournalDelta = { delta: 'Once ', afterMs: 20 };
 * console.log(chunk.afterMs); // 20
 * ```
 */
export interface JournalDelta {
  /** The chunk's text, as recorded. */
  readonly delta: string;
  /** Its `at` less the call's `call-start` `at`, in ms. */
  readonly afterMs: number;
}

/**
 * How a recorded call ended, timed from its `call-start`.
 *
 * @remarks
 * - `completed`: a `call-end`;
 * - `failed`: a `call-error` (the replay errors with a `ReplayedCallError` rebuilt from `error`);
 * - `cancelled`: a `call-error` named `AbortError`, which is how a call reads when its caller left;
 * - `interrupted`: a `call-error` with code `CALL_INTERRUPTED`, written when a run resumed for a call in
 *   flight when its process stopped, and no later attempt at the same place (a later attempt is the call
 *   the code made: the interrupted one is then left out of the agent's recorded calls);
 * - `unfinished`: the journal ends before the call does.
 *
 * The last three replay as a call that never ends (until it is aborted), so the replayed run is cut off
 * where the recorded one was.
 *
 * @example
 * ```ts
 * import type { JournalCallEnd } from '@rxagents/testing';
 *
 * const ends: JournalCallEnd[] = [
 *   { kind: 'completed', afterMs: 30 },
 *   { kind: 'failed', afterMs: 5, error: { name: 'AgentError', message: 'Agent "a" failed: boom', code: 'AGENT_ERROR', retryable: false } },
 *   { kind: 'unfinished' },
 * ];
 * console.log(ends.map((end) => end.kind)); // [ 'completed', 'failed', 'unfinished' ]
 * ```
 */
export type JournalCallEnd =
  | { readonly kind: 'completed'; readonly afterMs: number }
  | { readonly kind: 'failed' | 'cancelled' | 'interrupted'; readonly afterMs: number; readonly error: SerializedError }
  | { readonly kind: 'unfinished' };

/**
 * One agent call as a journal records it: what a replay agent answers with.
 *
 * @remarks
 * Only the call's own `text-delta`s (those whose `callId` is the call's): the events of calls the agent
 * made itself (nested under its call node) belong to those calls, not to this one.
 *
 * @example
 * ```ts
 * import type { JournalCall } from '@rxagents/testing';
 *
 * const call: JournalCall = {
 *   agentId: 'writer',
 *   callId: 'run/0',
 *   parentCallId: 'run',
 *   input: 'Tell a story',
 *   inputOmitted: false,
 *   at: 100,
 *   deltas: [{ delta: 'Once ', afterMs: 0 }, { delta: 'upon a time', afterMs: 20 }],
 *   end: { kind: 'completed', afterMs: 20 },
 * };
 * console.log(call.deltas.map((chunk) => chunk.delta).join('')); // Once upon a time
 * ```
 */
export interface JournalCall {
  /** The agent that was called. */
  readonly agentId: string;
  /** The call's node id in the recorded run. */
  readonly callId: string;
  /** The node it was made under. */
  readonly parentCallId: string | null;
  /** The input, or `''` when the journal left it out (`inputOmitted`, a text too long to repeat). */
  readonly input: string;
  /** Whether the journal left the input out: such a call's input cannot be compared. */
  readonly inputOmitted: boolean;
  /** Its `call-start`'s `at`, in ms on the recorded run's clock. */
  readonly at: number;
  /** Its chunks, in order. */
  readonly deltas: readonly JournalDelta[];
  /** How it ended. */
  readonly end: JournalCallEnd;
}
