import { findRedisServer, type RedisServer, startRedisServer } from './redisServer';

/**
 * `describe` with a real redis-server started before the suite and stopped after it; skipped (with one
 * line on stderr, from the `announce` suite only) when redis-server is not on the PATH.
 */
export function describeRedis(name: string, body: (server: () => RedisServer) => void, announce = false): void {
  const binary = findRedisServer();
  if (binary === undefined) {
    if (announce) process.stderr.write('@rxagents/redis: tests skipped: redis-server is not on the PATH (apt-get install redis-server)\n');
    describe.skip(name, () => body(() => undefined as never));
    return;
  }
  describe(name, () => {
    let server: RedisServer | undefined;
    beforeAll(async () => {
      server = await startRedisServer(binary);
    });
    afterAll(async () => {
      await server?.stop();
    });
    body(() => {
      if (server === undefined) throw new Error('redis-server did not start');
      return server;
    });
  });
}
