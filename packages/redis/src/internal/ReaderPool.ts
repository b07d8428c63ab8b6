import type { SchedulerLike, Subscription } from 'rxjs';
import type { RedisClient } from '../types/RedisClient';
import { closeClient } from './closeClient';
import { duplicateClient } from './duplicateClient';

/** Connections kept open between calls, at most. */
const MAX_IDLE_READERS = 16;
/** How long idle connections stay open after the last call ended, in ms. */
const READER_IDLE_MS = 250;

/** An idle reply-reading connection and the keys of the call it served, still to be deleted. */
interface IdleReader {
  readonly reader: RedisClient;
  readonly cleanup: readonly string[];
}

/**
 * The blocking-read connections of one remote agent, reused by its calls and closed when idle. A call
 * that ended hands its keys back with its connection: the next call on it deletes them in its first
 * pipeline, or the pool does when it closes the connection.
 */
export class ReaderPool {
  private readonly idle: IdleReader[] = [];
  private closing: Subscription | undefined;
  private lastReleaseAt = 0;

  constructor(
    private readonly redis: RedisClient,
    private readonly scheduler: SchedulerLike,
    private readonly onIdle: () => void,
  ) {}

  acquire(): IdleReader {
    const idle = this.idle.pop();
    if (idle !== undefined) return idle;
    const reader = duplicateClient(this.redis);
    // Its failures reach the call through the read that fails; ioredis would print them too without a listener.
    reader.on('error', () => undefined);
    return { reader, cleanup: [] };
  }

  /**
   * Takes back `reader`, on which no command is in flight, with the keys still to delete; false when it
   * was closed instead (the pool is full or the connection is down) and the keys were not taken.
   */
  release(reader: RedisClient, cleanup: readonly string[]): boolean {
    if (reader.status !== 'ready' || this.idle.length >= MAX_IDLE_READERS) {
      closeClient(reader);
      return false;
    }
    this.idle.push({ reader, cleanup });
    this.lastReleaseAt = this.scheduler.now();
    // One timer for the pool, not one per call: when it fires while calls went on, it waits again.
    if (this.closing === undefined) this.closeWhenIdle(READER_IDLE_MS);
    return true;
  }

  private closeWhenIdle(delay: number): void {
    this.closing = this.scheduler.schedule(() => {
      const idleFor = this.scheduler.now() - this.lastReleaseAt;
      if (idleFor < READER_IDLE_MS) return this.closeWhenIdle(READER_IDLE_MS - idleFor);
      this.closing = undefined;
      this.closeIdle();
      this.onIdle();
    }, delay);
  }

  private closeIdle(): void {
    for (const idle of this.idle.splice(0)) {
      // A connection that dropped is closed at once: its DEL would wait for a reconnect that may never come.
      if (idle.cleanup.length === 0 || idle.reader.status !== 'ready') closeClient(idle.reader);
      else
        idle.reader
          .del(...idle.cleanup)
          .catch(() => undefined)
          .finally(() => closeClient(idle.reader));
    }
  }
}
