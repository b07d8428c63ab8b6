import { type Agent, ConfigError, parseConfig } from '@rxagents/core';
import { checkClient } from './internal/checkClient';
import type { RedisClient } from './types/RedisClient';
import { hashTagId } from './internal/hashTagId';
import { ServeAgentOptionsSchema, type ServeAgentOptions, type ServedAgent } from './ServeAgentOptions';
import { Worker } from './internal/Worker';

/**
 * Serves `agent` to {@link remoteAgent} callers: reads calls for `agent.id` from Redis and streams the replies back.
 *
 * @remarks
 * Every worker of one agent id joins the id's consumer group, so the calls are shared among them; each
 * runs at most `concurrency` calls at once. A call runs as a local call would (through `stream`, so a
 * Promise, Observable or AsyncIterable reply all work); the agent's `ChatOptions.run` sends its run
 * events to the caller's run. The agent's `AbortSignal` fires when the caller cancels or its lease runs
 * out. A fresh call (younger than half its caller's lease by Redis's clock, which the worker measures
 * with `TIME`) starts as soon as its entry has taken the call (one `SET NX GET`: an entry of the same call
 * added again, as a caller's `XADD` that ioredis resent after a lost reply is, is acknowledged and deleted
 * unrun); a claimed or older one also has its start counted and its caller's lease checked first. Running calls are confirmed every `leaseCheckMs`; a call left unconfirmed for
 * `claimIdleMs` (its worker died) is claimed by another worker and started again, up to the caller's
 * `maxAttempts`. An entry that is not valid JSON or fails the call schema goes to the dead-letter stream
 * `<prefix>:agent:{<id>}:dead` with the reason and is never run; when its `callId` can still be read, the
 * caller gets a final error reply with the reason (its call fails with a `RemoteAgentError` whose cause has
 * code `REMOTE_CALL_REFUSED`) instead of waiting for its timeout.
 *
 * @param redis - An ioredis `Redis` or `Cluster` client ({@link RedisClient}) for writes; one duplicate of it does the blocking reads and carries the replies of calls answered at once.
 * @param agent - The agent to serve; callers address it by `agent.id`, which must not contain `{` or `}` (it becomes the hash tag of the agent's keys; a `ConfigError` naming `agent.id` otherwise).
 * @param options - See {@link ServeAgentOptions}.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { serveAgent } from '@rxagents/redis';
 * import { Redis } from 'ioredis';
 *
 * export function startWorker() {
 *   const writer = defineAgent('writer', async (input: string) => `A story about ${input}`);
 *   return serveAgent(new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'), writer, { concurrency: 8 });
 * }
 * ```
 *
 * @see {@link remoteAgent}
 */
export function serveAgent(redis: RedisClient, agent: Agent, options: ServeAgentOptions = {}): ServedAgent {
  checkClient(redis, 'serveAgent');
  if (typeof agent !== 'object' || agent === null || typeof agent.chat !== 'function') {
    throw new ConfigError('serveAgent', [{ path: 'agent', rule: 'must be an agent (an object with an id and a chat method)', received: agent }]);
  }
  hashTagId(agent.id, 'serveAgent', 'agent.id');
  const config = parseConfig(ServeAgentOptionsSchema, options, `serveAgent "${agent.id}"`);
  return new Worker(redis, agent, config);
}
