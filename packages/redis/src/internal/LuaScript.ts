import { createHash } from 'node:crypto';
import type { RedisClient } from '../types/RedisClient';

/**
 * A Lua script run with `EVALSHA`, and with `EVAL` when Redis does not know it (`NOSCRIPT`: the first
 * run on a server, or after a restart or `SCRIPT FLUSH`), so its text crosses the network once per server.
 * Its keys must share one hash tag on a Redis Cluster (a script runs on one node).
 */
export class LuaScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: RedisClient, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw error;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}
