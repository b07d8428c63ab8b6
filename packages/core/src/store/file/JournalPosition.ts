/**
 * A place in a journal where a read can start: just after its version line, or just after a complete
 * append or fence (where the next append's leading newline begins), with the reader's state there, so
 * that a read from it goes on as one from the first line would.
 */
export interface JournalPosition {
  /** The byte offset of the place. */
  readonly offset: number;
  /** The seq of the next record. */
  readonly seq: number;
  /** The 1-based number of the line that starts at `offset` (for error messages). */
  readonly line: number;
  /** The highest epoch of the fences and counted appends before it: an append of an older one after it is stale. */
  readonly epoch: number;
}
