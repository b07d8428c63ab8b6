import { type Agent, parseConfig } from '@rxagents/core';
import { checkClient } from './internal/checkClient';
import { CommandBatch } from './internal/CommandBatch';
import { hashTagId } from './internal/hashTagId';
import { LeaseRenewals } from './internal/LeaseRenewals';
import { ReaderPool } from './internal/ReaderPool';
import type { RedisClient } from './types/RedisClient';
import { checkChatCall } from './internal/checkChatCall';
import { RemoteAgentOptionsSchema, type RemoteAgentOptions } from './RemoteAgentOptions';
import { remoteCall } from './internal/remoteCall';

/**
 * An ordinary {@link Agent} whose calls run on worker processes that serve `id` with {@link serveAgent}.
 *
 * @remarks
 * `chat` adds the call to the agent's call stream and streams back the worker's reply: its chunks and,
 * when the call belongs to a run (`ChatOptions.run`), the remote agent's own run events (its nested calls,
 * handoffs, patterns), so a run watched here shows what happens inside the remote agent. Unsubscribing
 * (or a timeout of `stream`/`invoke`) deletes the call's lease and its call entry: a call no worker has
 * read yet is never started, and a running one is stopped (the worker aborts the agent's `AbortSignal`).
 * When a worker dies mid-call another one runs it again; the run gets a `custom` event named
 * `call-restarted` (`data: { agentId, attempt }`) and, with `delivery: 'attempt'`, the reply is the new
 * attempt's text alone. See the `delivery` and `maxAttempts` options.
 *
 * A question the remote agent asks a person (`askForInput`, `askForApproval`) is open in this process too
 * while it waits on the worker (core's `relayInterrupt`): `answerInterrupt`, `pendingInterrupts` and a run
 * registry here answer and list it, and the answer goes to the worker through the call's answers stream.
 *
 * A call with `ChatOptions.idempotencyKey` (every agent call of a durable run has one, the same on each
 * attempt) is sent once per key: its call id is derived from the agent id and the key (SHA-256), and one
 * Lua script either finds the call (requested, running, or ended with its reply still kept) and
 * re-attaches to it, reading its reply from the start, or sends it. So a run resumed after its process
 * died mid-call gets the reply of the call still running on a worker, and the agent runs once. A call the
 * worker stopped because no caller held its lease is sent again; a call with a key that ended keeps its
 * reply until it expires (the worker's `replyTtlMs`). Unsubscribing cancels the call, as it does one
 * without a key.
 *
 * Each call in flight sends its lease and call entry and reads its reply on a connection of its own (a
 * duplicate of `redis`); the agent keeps up to 16 of them open between calls, so sequential calls reuse
 * one, and closes them 250 ms after the last call ended (so a process that is done can exit). `redis`
 * itself carries the lease renewals (one timer for all the calls in flight) and cancellations.
 *
 * @param redis - An ioredis `Redis` or `Cluster` client ({@link RedisClient}); its options (password, ACL user, TLS, db) apply to every connection.
 * @param id - The agent id the workers serve; it becomes the hash tag of the agent's keys, so it must not contain `{` or `}` (a `ConfigError` naming `id` otherwise).
 * @param options - See {@link RemoteAgentOptions}.
 *
 * @example
 * ```ts
 * import { invoke } from '@rxagents/core';
 * import { remoteAgent } from '@rxagents/redis';
 * import { Redis } from 'ioredis';
 *
 * export async function ask(question: string): Promise<string> {
 *   const writer = remoteAgent(new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'), 'writer');
 *   return invoke(writer, question, { timeout: 30_000 });
 * }
 * ```
 *
 * @see {@link serveAgent}
 */
export function remoteAgent(redis: RedisClient, id: string, options: RemoteAgentOptions = {}): Agent {
  checkClient(redis, 'remoteAgent');
  const agentId = hashTagId(id, 'remoteAgent', 'id');
  const config = parseConfig(RemoteAgentOptionsSchema, options, `remoteAgent "${agentId}"`);
  const commands = new CommandBatch(redis);
  const renewals = new LeaseRenewals(commands, config.leaseMs, config.scheduler);
  const readers = new ReaderPool(redis, config.scheduler, () => renewals.stopIfIdle());
  const agent: Agent = {
    id: agentId,
    ...(config.name === undefined ? {} : { name: config.name }),
    ...(config.role === undefined ? {} : { role: config.role }),
    ...(config.goal === undefined ? {} : { goal: config.goal }),
    chat: (input, chatOptions) => {
      checkChatCall(agentId, input, chatOptions);
      return remoteCall({ commands, readers, renewals }, agentId, config, input, chatOptions);
    },
  };
  return agent;
}
