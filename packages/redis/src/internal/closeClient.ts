import type { RedisClient } from '../types/RedisClient';

/**
 * Closes a connection the package opened, at once, unless it is closed already: ioredis's `disconnect()`
 * of a closed connection arms a two-second timer that nothing clears, which keeps the process (a test
 * runner, a worker shutting down) alive for that long.
 */
export function closeClient(client: RedisClient): void {
  if (client.status !== 'end') client.disconnect();
}
