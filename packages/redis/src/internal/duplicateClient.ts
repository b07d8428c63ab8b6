import type { Cluster, Redis } from 'ioredis';
import type { RedisClient } from '../types/RedisClient';

/**
 * A new connection with `redis`'s options, for blocking reads: `Redis#duplicate()`, or for a `Cluster`
 * `Cluster#duplicate()` (a cluster client of its own, which follows the slot of each key it reads).
 */
export function duplicateClient(redis: RedisClient): RedisClient {
  // The two duplicate() signatures differ, so a call on the union does not type-check; `isCluster` tells them apart.
  return redis.isCluster ? (redis as Cluster).duplicate() : (redis as Redis).duplicate();
}
