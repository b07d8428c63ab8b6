import { CoordinationError } from '@rxagents/core';

/**
 * A {@link ChoreographyEngine} was asked to run a second time.
 *
 * @remarks
 * An engine runs once: its run closes its event bus and each interaction may run at most once.
 * Subscribing to `execute$()` again (or calling `execute()` again) fails with this error. Build a new
 * engine to run the spec again.
 *
 * @example
 * ```ts
 * import { ChoreographyAlreadyExecutedError } from '@rxagents/choreography';
 *
 * const error = new ChoreographyAlreadyExecutedError('article');
 * console.log(error.code); // CHOREOGRAPHY_ALREADY_EXECUTED
 * ```
 */
export class ChoreographyAlreadyExecutedError extends CoordinationError {
  /** The name of the spec whose engine already ran. */
  readonly specName: string;

  constructor(specName: string) {
    super('CHOREOGRAPHY_ALREADY_EXECUTED', `Choreography "${specName}" has already been executed; an engine runs once`, {
      retryable: false,
      context: { specName },
    });
    this.specName = specName;
  }
}
