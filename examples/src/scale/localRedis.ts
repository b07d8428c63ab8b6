import { findRedisServer, startRedisServer } from '../../../packages/redis/test/support/redisServer';

/** A Redis the demo can use: its URL, and how to let it go. */
export interface DemoRedis {
  readonly url: string;
  readonly started: boolean;
  stop(): Promise<void>;
}

/**
 * `REDIS_URL` when it is set; else a redis-server started on 127.0.0.1, on a free port, in a temporary
 * directory (AOF on), stopped by `stop`; else `undefined` (no redis-server on the PATH).
 */
export async function demoRedis(): Promise<DemoRedis | undefined> {
  const given = (process.env.REDIS_URL ?? '').trim();
  if (given !== '') return { url: given, started: false, stop: async () => undefined };
  const binary = findRedisServer();
  if (binary === undefined) return undefined;
  const server = await startRedisServer(binary, { dirPrefix: 'rxagents-demo-redis-' });
  return { url: server.url, started: true, stop: () => server.stop() };
}
