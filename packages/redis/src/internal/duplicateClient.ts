import type { Cluster, Redis } from 'ioredis';
import type { RedisClient } from '../types/RedisClient';

/**
 * How long a closed duplicate waits for Redis to acknowledge the close before dropping the socket, in ms.
 * ioredis waits two seconds by default, and its timer is not cleared when the socket was gone already (Redis
 * went away): a worker or test runner that closes then stays alive that long.
 */
const DISCONNECT_TIMEOUT_MS = 100;

/**
 * A new connection with `redis`'s options, for blocking reads: `Redis#duplicate()`, or for a `Cluster`
 * `Cluster#duplicate()` (a cluster client of its own, which follows the slot of each key it reads), with
 * an `error` listener of its own.
 */
export function duplicateClient(redis: RedisClient): RedisClient {
  // The two duplicate() signatures differ, so a call on the union does not type-check; `isCluster` tells them apart.
  const duplicate = redis.isCluster
    ? (redis as Cluster).duplicate([], { redisOptions: { disconnectTimeout: DISCONNECT_TIMEOUT_MS } })
    : (redis as Redis).duplicate({ disconnectTimeout: DISCONNECT_TIMEOUT_MS });
  // Its failures reach its owner through the commands that fail. Without a listener ioredis would print
  // "Unhandled error event" for each failed reconnection while Redis is away.
  duplicate.on('error', () => undefined);
  return duplicate;
}
