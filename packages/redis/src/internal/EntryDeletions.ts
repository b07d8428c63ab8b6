import type { RedisClient } from '../types/RedisClient';

/** How many answered call entries one `XDEL` deletes at most, when calls come faster than the worker's ticks. */
const DELETIONS_PER_BATCH = 16;

/**
 * The answered (acknowledged) call entries a worker has still to delete from its agent's call stream. An
 * entry is deleted with a later one's acknowledgement, in batches of {@link DELETIONS_PER_BATCH}, or at the
 * worker's next tick: one `XDEL` for many calls instead of one each. An acknowledged entry is out of the
 * pending-entry list already, so no worker runs it again while it waits here.
 */
export class EntryDeletions {
  private ids: string[] = [];

  constructor(
    private readonly redis: RedisClient,
    private readonly callsKey: string,
  ) {}

  /** Adds `entryId`; returns the ids to delete now (a full batch, this one included), or none. */
  add(entryId: string): readonly string[] {
    this.ids.push(entryId);
    return this.ids.length < DELETIONS_PER_BATCH ? [] : this.take();
  }

  /** Takes every id waiting. */
  private take(): readonly string[] {
    const ids = this.ids;
    this.ids = [];
    return ids;
  }

  /** Puts back `ids` whose deletion failed, to be deleted with the next batch. */
  restore(ids: readonly string[]): void {
    this.ids.push(...ids);
  }

  /** Deletes every id waiting, in one `XDEL` on the worker's client; on failure they wait for the next batch. */
  async deleteWaiting(): Promise<void> {
    const ids = this.take();
    if (ids.length === 0) return;
    try {
      await this.redis.call('xdel', this.callsKey, ...ids);
    } catch (error) {
      this.restore(ids);
      throw error;
    }
  }
}
