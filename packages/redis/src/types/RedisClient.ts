import type { Cluster, Redis } from 'ioredis';

/**
 * The ioredis client that {@link serveAgent}, {@link remoteAgent}, {@link redisChannel} and
 * {@link redisEventBus} take: a `Redis` (one server, or a Sentinel group) or a `Cluster` (Redis Cluster).
 *
 * @remarks
 * Every key of one agent's call stream, of one call, of one channel or of one shared run carries one hash tag, so each
 * command and each group of related writes stays in one cluster slot; blocking reads run on a
 * `duplicate()` of the client, which for a `Cluster` is a cluster client of its own.
 *
 * @example
 * ```ts
 * import type { RedisClient } from '@rxagents/redis';
 * import { Cluster, Redis } from 'ioredis';
 *
 * export function client(): RedisClient {
 *   const nodes = process.env.REDIS_CLUSTER_NODES;
 *   if (nodes === undefined) return new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
 *   return new Cluster(nodes.split(',').map((node) => {
 *     const [host = '127.0.0.1', port = '6379'] = node.split(':');
 *     return { host, port: Number(port) };
 *   }));
 * }
 * ```
 *
 * @see {@link serveAgent}
 * @see {@link remoteAgent}
 * @see {@link redisChannel}
 * @see {@link redisEventBus}
 */
export type RedisClient = Redis | Cluster;
