import { CoordinationError, RunStoreError, type RunRecord, type RunStore } from '@rxagents/core';

/** The most records one page of a journal takes (and at most `MAX_READ_BYTES` of frames, as a `RunLog` blocks them). */
export const JOURNAL_PAGE_RECORDS = 256;

/**
 * One reader's place in a run's journal. Its store read is kept open from one page to the next, so each
 * page goes on where the last one stopped instead of asking the store to find `next` again; once that
 * read reaches the end the journal had when it began, the next page begins a new one from `next`.
 */
export class JournalCursor {
  private records: AsyncIterator<RunRecord> | undefined;

  constructor(
    private readonly store: RunStore,
    private readonly runId: string,
    /** The seq of the next record to read. */
    public next: number,
  ) {}

  /**
   * Hands `take` the journal's next records in order until it returns `false` or the journal has no more
   * (as it is now); resolves with how many it handed, 0 when the journal holds nothing after `next` yet.
   */
  async page(take: (record: RunRecord) => boolean): Promise<number> {
    let count = 0;
    let fresh = false;
    for (;;) {
      if (this.records === undefined) {
        this.records = this.store.read(this.runId, this.next)[Symbol.asyncIterator]();
        fresh = true;
      }
      let result: IteratorResult<RunRecord>;
      try {
        result = await this.records.next();
      } catch (error) {
        this.records = undefined;
        throw error instanceof CoordinationError ? error : new RunStoreError('read', this.runId, error);
      }
      if (result.done === true) {
        this.records = undefined;
        // A read that began earlier ended where the journal then ended: it may have grown since.
        if (count > 0 || fresh) return count;
        continue;
      }
      // A record out of place would repeat an event or leave a gap: the next page reads again from `next`.
      if (result.value.seq !== this.next) {
        this.close();
        return count;
      }
      this.next++;
      count++;
      if (!take(result.value)) return count;
    }
  }

  /** Ends the open read, if any (its store lets go of what it holds for it). */
  close(): void {
    const records = this.records;
    this.records = undefined;
    void records?.return?.()?.catch(() => undefined);
  }
}
