import { findClusterTools, type RedisCluster, startRedisCluster } from './redisCluster';

/**
 * `describe` with a real 3-master Redis Cluster started before the suite and stopped after it; skipped
 * with one line on stderr when redis-server or redis-cli is not on the PATH.
 */
export function describeRedisCluster(name: string, body: (cluster: () => RedisCluster) => void): void {
  const tools = findClusterTools();
  if ('missing' in tools) {
    process.stderr.write(`@rxagents/redis: Redis Cluster tests skipped: ${tools.missing}\n`);
    describe.skip(name, () => body(() => undefined as never));
    return;
  }
  describe(name, () => {
    let cluster: RedisCluster | undefined;
    beforeAll(async () => {
      cluster = await startRedisCluster(tools);
    }, 60_000);
    afterAll(async () => {
      await cluster?.stop();
    });
    body(() => {
      if (cluster === undefined) throw new Error('the Redis Cluster did not start');
      return cluster;
    });
  });
}
