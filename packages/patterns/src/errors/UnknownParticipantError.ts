import { CoordinationError } from '@rxagents/core';

/**
 * A turn policy (or a supervisor) named an agent that is not part of the pattern.
 *
 * @remarks
 * Ends the run with status `failed` and this error as `result.error`. Not retryable: the same policy
 * names the same agent again.
 *
 * @example
 * ```ts
 * import { UnknownParticipantError } from '@rxagents/patterns';
 *
 * const error = new UnknownParticipantError('mallory', ['alice', 'bob']);
 * console.log(error.message); // "mallory" is not a participant (participants: alice, bob)
 * ```
 */
export class UnknownParticipantError extends CoordinationError {
  /** The id that was named. */
  readonly participantId: string;

  constructor(participantId: string, participants: readonly string[]) {
    super('UNKNOWN_PARTICIPANT', `"${participantId}" is not a participant (participants: ${participants.join(', ')})`, {
      retryable: false,
      context: { participantId, participants: [...participants] },
    });
    this.participantId = participantId;
  }
}
