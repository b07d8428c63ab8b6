import type { RedisClient } from '../types/RedisClient';
import { duplicateClient } from './duplicateClient';

type Argument = string | number;

interface Queued {
  readonly command: string;
  readonly args: readonly Argument[];
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * A worker's reading connection (a duplicate of its client): its blocking `XREADGROUP`, and the writes of
 * calls that answer within the turn of the event loop that sends that read. The commands queued in one
 * turn go out as one pipeline, the writes before the read (a blocked read would hold back what follows
 * it), so a quick call's reply, its acknowledgement and the next read cost one socket write. Each
 * command settles on its own reply: a write does not wait for the read behind it.
 */
export class WorkerReader {
  private writes: Queued[] = [];
  private read: Queued | undefined;
  private scheduled = false;
  /** Whether a read is in flight (Redis holds the connection until calls arrive). */
  private blocked = false;
  /** Writes queued or in flight. */
  private writing = 0;
  private closing = false;
  private readonly connection: RedisClient;

  constructor(redis: RedisClient) {
    this.connection = duplicateClient(redis);
  }

  /**
   * Whether a write may go out on this connection now: it is not held by a read, nor closing, nor a
   * cluster connection (a pipeline there must not cross slots, and a call's keys and its agent's differ).
   */
  get open(): boolean {
    return !this.blocked && !this.closing && !this.connection.isCluster && this.connection.status === 'ready';
  }

  /** Sends `command` with the next pipeline; call only while {@link open}. */
  write(command: string, ...args: Argument[]): Promise<unknown> {
    this.writing += 1;
    return new Promise<unknown>((resolve, reject) => {
      this.writes.push({ command, args, resolve, reject });
      this.schedule();
    }).finally(() => {
      this.writing -= 1;
      if (this.writing === 0 && this.closing) this.connection.disconnect();
    });
  }

  /** Sends the blocking read `command` after this turn's writes; one read at a time. */
  readBlocking(command: string, ...args: Argument[]): Promise<unknown> {
    if (this.connection.isCluster) return this.connection.call(command, ...args);
    return new Promise<unknown>((resolve, reject) => {
      this.read = { command, args, resolve, reject };
      this.schedule();
    });
  }

  /** Ends the connection once the writes on it are answered (a read in flight then fails). */
  close(): void {
    this.closing = true;
    if (this.writing === 0) this.connection.disconnect();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    process.nextTick(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const { writes, read } = this;
    this.writes = [];
    this.read = undefined;
    const pipeline = this.connection.pipeline();
    for (const { command, args, resolve, reject } of writes) pipeline.call(command, [...args], (error, value) => (error ? reject(error) : resolve(value)));
    if (read !== undefined) {
      this.blocked = true;
      pipeline.call(read.command, [...read.args], (error, value) => {
        this.blocked = false;
        if (error) read.reject(error);
        else read.resolve(value);
      });
    }
    // Each command settles through its callback; the pipeline's own result repeats them.
    pipeline.exec().catch(() => undefined);
  }
}
