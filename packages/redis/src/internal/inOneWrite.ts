import type { RedisClient } from '../types/RedisClient';

/**
 * Runs `send`, whose commands on `redis` then go out in one socket write: the connection's socket is
 * corked while they are queued. Unlike a pipeline, each command settles on its own reply, and a blocking
 * read among them keeps only itself alive while it waits, not the commands sent with it. A cluster
 * client, or one without a socket yet, sends as usual.
 */
export function inOneWrite<T>(redis: RedisClient, send: () => T): T {
  const socket = redis.isCluster ? undefined : (redis as { stream?: { cork(): void; uncork(): void } }).stream;
  socket?.cork();
  try {
    return send();
  } finally {
    socket?.uncork();
  }
}
