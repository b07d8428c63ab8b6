import { ConfigError, defineAgent } from '@rxagents/core';
import { Cluster, Redis } from 'ioredis';
import { redisChannel, redisEventBus, remoteAgent, serveAgent, type RedisClient } from '../src';

// None of these clients connects (lazyConnect): the entry points refuse them before any command.
const entryPoints: ReadonlyArray<[string, (redis: RedisClient) => unknown]> = [
  ['remoteAgent', (redis) => remoteAgent(redis, 'writer')],
  ['serveAgent', (redis) => serveAgent(redis, defineAgent('writer', async () => 'ok'))],
  ['redisChannel', (redis) => redisChannel(redis, 'updates')],
  ['redisEventBus', (redis) => redisEventBus(redis, { runId: 'run-1' })],
];

function configErrorOf(build: () => unknown): ConfigError {
  try {
    build();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('no ConfigError was thrown');
}

describe('the Redis client every entry point takes', () => {
  const clients: Array<Redis | Cluster> = [];
  afterAll(() => clients.forEach((client) => client.disconnect()));

  it.each(entryPoints)('%s refuses a client that maps replies the RESP3 way, naming the option', (name, build) => {
    const client = new Redis({ lazyConnect: true, replyMapping: 'resp3' });
    clients.push(client);
    const error = configErrorOf(() => build(client));
    expect(error.message).toContain(name);
    expect(error.issues).toEqual([expect.objectContaining({ path: 'redis', rule: expect.stringContaining("replyMapping 'legacy'") })]);
  });

  it.each(entryPoints)('%s refuses a cluster client whose node connections map replies the RESP3 way', (_name, build) => {
    const cluster = new Cluster([{ host: '127.0.0.1', port: 7000 }], { lazyConnect: true, redisOptions: { replyMapping: 'resp3' } });
    clients.push(cluster);
    expect(configErrorOf(() => build(cluster)).issues).toEqual([expect.objectContaining({ path: 'redis', rule: expect.stringContaining('replyMapping') })]);
  });

  it.each(entryPoints)('%s refuses what is not an ioredis client', (_name, build) => {
    expect(configErrorOf(() => build({} as RedisClient)).issues).toEqual([expect.objectContaining({ path: 'redis', rule: 'must be an ioredis client' })]);
  });
});
