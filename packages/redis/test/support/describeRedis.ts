import { spawnSync } from 'node:child_process';
import { findRedisServer, type RedisServer, type RedisServerOptions, startRedisServer } from './redisServer';

/**
 * `describe` with a real redis-server started before the suite and stopped after it; skipped (with one
 * line on stderr, from the `announce` suite only) when redis-server is not on the PATH. `options` say how
 * the server starts (see {@link RedisServerOptions}).
 */
export function describeRedis(name: string, body: (server: () => RedisServer) => void, announce = false, options: RedisServerOptions = {}): void {
  const binary = findRedisServer();
  if (binary === undefined) {
    if (announce) process.stderr.write('@rxagents/redis: tests skipped: redis-server is not on the PATH (apt-get install redis-server)\n');
    describe.skip(name, () => body(() => undefined as never));
    return;
  }
  if (options.tls === true && !hasOpenssl()) {
    process.stderr.write(`@rxagents/redis: "${name}" skipped: openssl is not on the PATH to make its test certificate (apt-get install openssl)\n`);
    describe.skip(name, () => body(() => undefined as never));
    return;
  }
  describe(name, () => {
    let server: RedisServer | undefined;
    beforeAll(async () => {
      server = await startRedisServer(binary, options);
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

function hasOpenssl(): boolean {
  return spawnSync('sh', ['-c', 'command -v openssl'], { encoding: 'utf8' }).status === 0;
}
