import type { SchedulerLike } from 'rxjs';
import type { RedisClient } from '../types/RedisClient';

/**
 * Redis's clock as a worker knows it: the offset between Redis's `TIME` and the scheduler's clock, taken
 * halfway through the round trip (so off by at most half of it), and the age of stream entries by their ids.
 * A cluster client measures nothing: its nodes' clocks may differ.
 */
export class RedisClock {
  /** Redis's clock minus the scheduler's, in ms, as last measured; undefined when unknown. */
  private offset: number | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly scheduler: SchedulerLike,
  ) {}

  async measure(): Promise<void> {
    if (this.redis.isCluster) return;
    const sentAt = this.scheduler.now();
    const [seconds, micros] = await this.redis.time();
    const receivedAt = this.scheduler.now();
    this.offset = Number(seconds) * 1_000 + Number(micros) / 1_000 - (sentAt + receivedAt) / 2;
  }

  /** How long ago, in ms of Redis's clock, the stream entry `entryId` (`<ms>-<seq>`) was added; undefined when unknown. */
  ageOf(entryId: string): number | undefined {
    const addedAt = Number.parseInt(entryId, 10);
    if (this.offset === undefined || !Number.isFinite(addedAt)) return undefined;
    return this.scheduler.now() + this.offset - addedAt;
  }
}
