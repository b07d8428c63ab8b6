import { CoordinationError, preview } from '@rxagents/core';

/**
 * A replay agent was called with an input other than the one its recorded call had.
 *
 * @remarks
 * Code `REPLAY_INPUT_MISMATCH`, not retryable. The message shows both inputs from a little before the
 * first character where they differ (so a difference deep inside a long prompt is visible); the fields keep them whole. The
 * call fails (through `stream`, an `AgentError` with this error as its `cause`) and still uses up its
 * recorded call. `replayAgents(journal, { matchInput: false })` answers whatever the input.
 *
 * @example
 * ```ts
 * import { ReplayInputMismatchError } from '@rxagents/testing';
 *
 * const error = new ReplayInputMismatchError('writer', 1, 'Tell a story', 'Tell a joke');
 * console.log(error.code, error.message);
 * // REPLAY_INPUT_MISMATCH Agent "writer", call 1: the input differs from the recorded one after 7 equal characters: recorded "Tell a story", got "Tell a joke"
 * ```
 */
export class ReplayInputMismatchError extends CoordinationError {
  constructor(
    /** The agent whose call differs. */
    readonly agentId: string,
    /** Which call of that agent it is: 1 for the first. */
    readonly call: number,
    /** The input the journal records for that call. */
    readonly recordedInput: string,
    /** The input it was called with. */
    readonly actualInput: string,
  ) {
    const at = firstDifference(recordedInput, actualInput);
    super(
      'REPLAY_INPUT_MISMATCH',
      `Agent "${agentId}", call ${call}: the input differs from the recorded one after ${at} equal characters: recorded ${around(recordedInput, at)}, got ${around(actualInput, at)}`,
      { context: { agentId, call, equalCharacters: at, recordedInput: preview(recordedInput), actualInput: preview(actualInput) } },
    );
  }
}

/** Characters shown before the first difference. */
const BEFORE = 20;

function firstDifference(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  let index = 0;
  while (index < length && a.charCodeAt(index) === b.charCodeAt(index)) index++;
  return index;
}

// The text from a little before the difference, quoted and cut by `preview` (at most 80 characters).
function around(text: string, at: number): string {
  const start = Math.max(0, at - BEFORE);
  return start === 0 ? preview(text) : `...${preview(text.slice(start))}`;
}
