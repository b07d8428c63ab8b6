import { ConfigError } from '@rxagents/core';

interface ClientOptions {
  readonly replyMapping?: unknown;
  readonly redisOptions?: { readonly replyMapping?: unknown };
}

/**
 * Refuses what cannot be this package's connection: anything but an ioredis client (a `Redis` or a
 * `Cluster`), and a client that maps replies the RESP3 way (`replyMapping: 'resp3'`), whose stream replies
 * arrive as plain objects that no reader of this package takes. Without this check such a client would
 * fail every call, read and write later, each time with a protocol error.
 *
 * @param where - The entry point, named in the error.
 * @throws `ConfigError` at path `redis` naming what is wrong.
 */
export function checkClient(redis: unknown, where: string): void {
  if (typeof redis !== 'object' || redis === null || typeof (redis as { duplicate?: unknown }).duplicate !== 'function') {
    throw new ConfigError(where, [{ path: 'redis', rule: 'must be an ioredis client', received: redis }]);
  }
  // A `Redis` keeps the option in `options`; a `Cluster` in the options it gives each node's connection.
  const options = (redis as { options?: ClientOptions }).options;
  const mapping = options?.replyMapping ?? options?.redisOptions?.replyMapping;
  if (mapping !== undefined && mapping !== 'legacy') {
    throw new ConfigError(where, [{ path: 'redis', rule: "must map replies as ioredis does by default (replyMapping 'legacy')", received: mapping }]);
  }
}
