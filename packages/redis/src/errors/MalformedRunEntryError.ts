import { RunStoreError } from '@rxagents/core';

/**
 * An entry of a run's journal stream in Redis is not a record the store wrote: it is not valid JSON, not
 * a valid run event, or not where the run's next record belongs (an entry added or removed by someone else).
 *
 * @remarks
 * A `RunStoreError` (so code that handles a store's failures handles it too) with a code of its own,
 * `RUN_ENTRY_MALFORMED`, naming the run and the stream entry's id (`entryId`, as `XRANGE` shows it), so
 * the entry can be looked at with `redis-cli`. `read` raises it when it reaches the entry, before
 * yielding anything from it; `append` raises it when the stream does not end with the run's last record,
 * and then writes nothing. Not retryable: the journal must be repaired (or the run deleted) first.
 *
 * @example
 * ```ts
 * import { RunStoreError } from '@rxagents/core';
 * import { MalformedRunEntryError } from '@rxagents/redis';
 *
 * const error = new MalformedRunEntryError('read', 'r1', '3-0', 'not a run event: type must be one of run-start, ...');
 * console.log(error.code, error.entryId, error instanceof RunStoreError); // RUN_ENTRY_MALFORMED 3-0 true
 * ```
 */
export class MalformedRunEntryError extends RunStoreError {
  override readonly code: string;
  override readonly context: Readonly<Record<string, unknown>>;
  /** The run whose journal holds the entry. */
  declare readonly runId: string;
  /** The stream entry's id (`<ms>-<seq>`), as `XRANGE` shows it. */
  readonly entryId: string;
  /** What is wrong with it. */
  readonly reason: string;

  constructor(operation: string, runId: string, entryId: string, reason: string) {
    super(operation, runId, new Error(`the entry ${entryId} of its journal stream is malformed: ${reason}`));
    this.code = 'RUN_ENTRY_MALFORMED';
    this.context = Object.freeze({ operation, runId, entryId, reason });
    this.entryId = entryId;
    this.reason = reason;
  }
}
