import type { RedisClient } from '../types/RedisClient';

type Argument = string | number;

interface Queued {
  readonly command: string;
  readonly args: readonly Argument[];
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Sends the commands queued in one turn of the event loop as one pipeline (one write, one round trip):
 * the lease renewals and cancellations of many calls of a caller go out together.
 * Commands run in the order they were queued. On a Redis Cluster client each command goes out on its own,
 * as a pipeline there must not cross slots.
 */
export class CommandBatch {
  private queued: Queued[] = [];

  constructor(private readonly redis: RedisClient) {}

  /** Whether the client is a Redis Cluster client (commands are then sent one by one). */
  get cluster(): boolean {
    return this.redis.isCluster;
  }

  send(command: string, ...args: Argument[]): Promise<unknown> {
    if (this.redis.isCluster) return this.redis.call(command, ...args);
    return new Promise((resolve, reject) => {
      if (this.queued.length === 0) process.nextTick(() => this.flush());
      this.queued.push({ command, args, resolve, reject });
    });
  }

  private flush(): void {
    const batch = this.queued;
    this.queued = [];
    const pipeline = this.redis.pipeline();
    for (const { command, args } of batch) pipeline.call(command, ...args);
    pipeline.exec().then(
      (replies) => {
        batch.forEach(({ resolve, reject }, index) => {
          const [error, value] = replies?.[index] ?? [new Error('the pipeline was discarded'), undefined];
          if (error === null) resolve(value);
          else reject(error);
        });
      },
      (error: unknown) => {
        for (const { reject } of batch) reject(error);
      },
    );
  }
}
