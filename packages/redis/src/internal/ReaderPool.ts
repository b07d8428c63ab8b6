import type { SchedulerLike, Subscription } from 'rxjs';
import type { RedisClient } from '../types/RedisClient';
import { closeClient } from './closeClient';
import { duplicateClient } from './duplicateClient';

/** Connections kept open between calls, at most. */
const MAX_IDLE_READERS = 16;
/** How long idle connections stay open after the last call ended, in ms. */
const READER_IDLE_MS = 250;
/** How many ended calls' keys one `DEL` deletes. */
const CALLS_PER_CLEANUP = 16;

/** A reply-reading connection, and the keys of ended calls its first write is to delete. */
interface AcquiredReader {
  readonly reader: RedisClient;
  readonly cleanup: readonly string[];
}

/**
 * The blocking-read connections of one remote agent, reused by its calls and closed when idle. A call
 * that ended hands its keys back with its connection; once {@link CALLS_PER_CLEANUP} calls did, the
 * next call deletes all their keys in its first write (one `DEL` for many calls), or the pool does
 * when it closes its connections.
 */
export class ReaderPool {
  private readonly idle: RedisClient[] = [];
  /** The keys of ended calls, still to delete, and how many calls they belong to. */
  private ended: string[] = [];
  private endedCalls = 0;
  private closing: Subscription | undefined;
  private lastReleaseAt = 0;

  constructor(
    private readonly redis: RedisClient,
    private readonly scheduler: SchedulerLike,
    private readonly onIdle: () => void,
  ) {}

  acquire(): AcquiredReader {
    const cleanup = this.endedCalls >= CALLS_PER_CLEANUP ? this.takeEnded() : [];
    const idle = this.idle.pop();
    if (idle !== undefined) return { reader: idle, cleanup };
    return { reader: duplicateClient(this.redis), cleanup };
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
    this.idle.push(reader);
    if (cleanup.length > 0) {
      this.ended.push(...cleanup);
      this.endedCalls += 1;
    }
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
    // Without an idle connection (calls still run) the keys wait for the next call or closing.
    const cleanup = this.idle.length > 0 ? this.takeEnded() : [];
    // A connection that dropped is closed at once: its DEL would wait for a reconnect that may never come.
    const deleter = cleanup.length === 0 ? undefined : this.idle.find((reader) => reader.status === 'ready');
    for (const reader of this.idle.splice(0)) {
      if (reader !== deleter) closeClient(reader);
      else
        reader
          .del(...cleanup)
          .catch(() => undefined)
          .finally(() => closeClient(reader));
    }
  }

  private takeEnded(): string[] {
    const ended = this.ended;
    this.ended = [];
    this.endedCalls = 0;
    return ended;
  }
}
