import type { RedisClient } from '../types/RedisClient';
import { closeClient } from './closeClient';
import { duplicateClient } from './duplicateClient';
import { inOneWrite } from './inOneWrite';

type Argument = string | number;

/** A command and its arguments. */
export type RedisCommand = readonly [command: string, ...args: Argument[]];

interface Queued {
  readonly commands: readonly RedisCommand[];
  readonly resolve: (values: unknown[]) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * A worker's reading connection (a duplicate of its client): its blocking `XREADGROUP`, and the writes of
 * calls that answer within the turn of the event loop that sends that read. The commands queued in one
 * turn go out in one socket write, the writes before the read (a blocked read would hold back what
 * follows it), so a quick call's reply, its acknowledgement and the next read cost one write. Each
 * write settles on its own replies: it does not wait for the read behind it.
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

  /** Sends `commands` in the next socket write, in order; resolves to their replies (rejects with the first error). Call only while {@link open}. */
  write(commands: readonly RedisCommand[]): Promise<unknown[]> {
    this.writing += 1;
    return new Promise<unknown[]>((resolve, reject) => {
      const settled = (): void => {
        this.writing -= 1;
        if (this.writing === 0 && this.closing) closeClient(this.connection);
      };
      this.writes.push({ commands, resolve: (values) => (settled(), resolve(values)), reject: (error) => (settled(), reject(error)) });
      this.schedule();
    });
  }

  /** Sends the blocking read `command` after this turn's writes; one read at a time. */
  readBlocking(command: string, ...args: Argument[]): Promise<unknown> {
    if (this.connection.isCluster) return this.connection.call(command, ...args);
    return new Promise<unknown[]>((resolve, reject) => {
      this.read = { commands: [[command, ...args]], resolve, reject };
      this.schedule();
    }).then(([value]) => value);
  }

  /** Ends the connection once the writes on it are answered (a read in flight then fails). */
  close(): void {
    this.closing = true;
    if (this.writing === 0) closeClient(this.connection);
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
    inOneWrite(this.connection, () => {
      for (const queued of writes) send(this.connection, queued);
      if (read === undefined) return;
      this.blocked = true;
      send(this.connection, {
        commands: read.commands,
        resolve: (values) => {
          this.blocked = false;
          read.resolve(values);
        },
        reject: (error) => {
          this.blocked = false;
          read.reject(error);
        },
      });
    });
  }
}

/** Sends `queued`'s commands on `connection`; `queued` settles once the last one is answered. */
function send(connection: RedisClient, { commands, resolve, reject }: Queued): void {
  const values: unknown[] = [];
  let failure: unknown;
  let answered = 0;
  const settle = (): void => {
    answered += 1;
    if (answered < commands.length) return;
    if (failure === undefined) resolve(values);
    else reject(failure);
  };
  commands.forEach(([command, ...args], index) => {
    connection.call(command, ...args).then(
      (value) => {
        values[index] = value;
        settle();
      },
      (error: unknown) => {
        failure ??= error;
        settle();
      },
    );
  });
}
