import { type Agent, type ChatOptions, configRules, CoordinationError, emitCustom, newRunId, parseConfig } from '@rxagents/core';
import { duplicateClient } from './internal/duplicateClient';
import type { RedisClient } from './types/RedisClient';
import { asyncScheduler, interval, Observable } from 'rxjs';
import { z } from 'zod';
import { RemoteAgentError } from './errors/RemoteAgentError';
import { RemoteCallAttemptsError } from './errors/RemoteCallAttemptsError';
import { RemoteCallRestartedError } from './errors/RemoteCallRestartedError';
import { agentKeys, callKeys } from './internal/keys';
import { type CallEntry, fieldOf, parseField, PROTOCOL_VERSION, type ReplyEntry, ReplyEntrySchema, StreamReadSchema } from './internal/protocol';

/** How long one blocking read of a reply stream waits before it asks again, in ms. */
const READ_BLOCK_MS = 5_000;
/** How many reply entries one read takes at most. */
const READ_COUNT = 512;

/**
 * The options of {@link remoteAgent}, checked by this schema (bad values fail with a `ConfigError`
 * naming the field).
 *
 * @example
 * ```ts
 * import { RemoteAgentOptionsSchema } from '@rxagents/redis';
 *
 * console.log(RemoteAgentOptionsSchema.parse({}).maxAttempts); // 3
 * ```
 */
export const RemoteAgentOptionsSchema = z.strictObject({
  /** The prefix of every Redis key; the same on callers and workers. */
  prefix: configRules.nonEmptyString().default('rxagents'),
  /**
   * `'attempt'` (default): an attempt's chunks are held until it ends, so the reply is always one attempt's
   * text, even when a worker dies mid-call. `'live'`: chunks are delivered as they arrive; a restart after
   * text was delivered fails the call with a retryable `RemoteCallRestartedError`.
   */
  delivery: z.enum(['attempt', 'live']).default('attempt'),
  /** How many times a call may be started (first run plus restarts after worker crashes) before it fails with `RemoteCallAttemptsError`. */
  maxAttempts: configRules.positiveInt(100).default(3),
  /** The caller's lease, in ms: when the caller dies, its calls stop on the workers at most this long (plus a worker's `leaseCheckMs`) later. */
  leaseMs: configRules.positiveInt(86_400_000).default(10_000),
  /** The approximate bound (`MAXLEN ~`) of the agent's call stream: calls not yet finished. */
  callsMaxLen: configRules.positiveInt().default(10_000),
  /** The clock of the lease renewals. */
  scheduler: configRules.scheduler().default(asyncScheduler),
  /** The returned agent's `name`. */
  name: z.string().optional(),
  /** The returned agent's `role`. */
  role: z.string().optional(),
  /** The returned agent's `goal`. */
  goal: z.string().optional(),
});

/**
 * The options of {@link remoteAgent}; every field is optional.
 *
 * @example
 * ```ts
 * import type { RemoteAgentOptions } from '@rxagents/redis';
 *
 * const options: RemoteAgentOptions = { delivery: 'live', maxAttempts: 2 };
 * console.log(options.delivery); // live
 * ```
 */
export type RemoteAgentOptions = z.input<typeof RemoteAgentOptionsSchema>;

/**
 * An ordinary {@link Agent} whose calls run on worker processes that serve `id` with {@link serveAgent}.
 *
 * @remarks
 * `chat` adds the call to the agent's call stream and streams back the worker's reply: its chunks and,
 * when the call belongs to a run (`ChatOptions.run`), the remote agent's own run events (its nested calls,
 * handoffs, patterns), so a run watched here shows what happens inside the remote agent. Unsubscribing
 * (or a timeout of `stream`/`invoke`) deletes the call's lease and the worker aborts the agent's
 * `AbortSignal`. When a worker dies mid-call another one runs it again; the run gets a `custom` event
 * named `call-restarted` (`data: { agentId, attempt }`) and, with `delivery: 'attempt'`, the reply is
 * the new attempt's text alone. See the `delivery` and `maxAttempts` options.
 *
 * The client `redis` is used for writes; each call opens one extra connection (a duplicate of `redis`)
 * for its blocking reads and closes it when the call ends.
 *
 * @param redis - An ioredis `Redis` or `Cluster` client ({@link RedisClient}); its options (password, ACL user, TLS, db) apply to every connection.
 * @param id - The agent id the workers serve.
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
  const agentId = parseConfig(configRules.id(), id, 'remoteAgent id');
  const config = parseConfig(RemoteAgentOptionsSchema, options, `remoteAgent "${agentId}"`);
  const agent: Agent = {
    id: agentId,
    ...(config.name === undefined ? {} : { name: config.name }),
    ...(config.role === undefined ? {} : { role: config.role }),
    ...(config.goal === undefined ? {} : { goal: config.goal }),
    chat: (input, chatOptions) => remoteCall(redis, agentId, config, input, chatOptions),
  };
  return agent;
}

type Config = z.output<typeof RemoteAgentOptionsSchema>;

function remoteCall(redis: RedisClient, agentId: string, config: Config, input: string, { context, metadata, run }: ChatOptions): Observable<string> {
  return new Observable<string>((subscriber) => {
    const callId = newRunId();
    const keys = callKeys(config.prefix, callId);
    const entry: CallEntry = {
      v: PROTOCOL_VERSION,
      callId,
      agentId,
      input,
      maxAttempts: config.maxAttempts,
      ...(context === undefined ? {} : { context: context as CallEntry['context'] }),
      ...(metadata === undefined ? {} : { metadata: JSON.parse(JSON.stringify(metadata)) as CallEntry['metadata'] }),
      ...(run === undefined || run.callId === null ? {} : { run: { runId: run.runId, callId: run.callId, parentCallId: run.parentCallId } }),
    };
    let closed = false;
    const reader = duplicateClient(redis);
    const renewals = interval(Math.max(1, Math.floor(config.leaseMs / 3)), config.scheduler).subscribe(() => {
      redis.set(keys.lease, '1', 'PX', config.leaseMs).catch(() => undefined);
    });

    // What this call has seen: the newest attempt, its held text, and whether text went out already.
    let attempt = 0;
    let lastSeq = -1;
    let held: string[] = [];
    let delivered = false;

    /** Applies one reply entry; returns true when the call is over. */
    const apply = (reply: ReplyEntry): boolean => {
      if (reply.attempt < attempt) return false; // A superseded worker that has not noticed yet.
      if (reply.attempt > attempt) {
        if (reply.attempt > 1) {
          emitCustom(run, 'call-restarted', { agentId, attempt: reply.attempt });
          if (config.delivery === 'live' && delivered) {
            subscriber.error(new RemoteCallRestartedError(agentId, reply.attempt));
            return true;
          }
        }
        attempt = reply.attempt;
        lastSeq = -1;
        held = [];
      }
      if (reply.seq <= lastSeq) return false; // Stored twice: ioredis resent the write after a reconnect.
      lastSeq = reply.seq;
      switch (reply.kind) {
        case 'started':
          return false;
        case 'chunk':
          if (config.delivery === 'live') {
            delivered = true;
            subscriber.next(reply.text);
          } else held.push(reply.text);
          return false;
        case 'event': {
          const event = reply.event;
          if (run !== undefined && event.runId === run.runId) run.emit(event);
          return false;
        }
        case 'end':
          for (const text of held) subscriber.next(text);
          subscriber.complete();
          return true;
        case 'error':
          subscriber.error(reply.exhausted ? new RemoteCallAttemptsError(agentId, reply.attempt) : new RemoteAgentError(agentId, reply.error));
          return true;
      }
    };

    const read = async (): Promise<void> => {
      await redis.set(keys.lease, '1', 'PX', config.leaseMs);
      if (closed) return;
      await redis.xadd(agentKeys(config.prefix, agentId).calls, 'MAXLEN', '~', config.callsMaxLen, '*', 'call', JSON.stringify(entry));
      let lastId = '0';
      while (!closed) {
        const raw = await reader.call('XREAD', 'COUNT', READ_COUNT, 'BLOCK', READ_BLOCK_MS, 'STREAMS', keys.reply, lastId);
        if (closed) return;
        const read = StreamReadSchema.safeParse(raw);
        if (!read.success) throw protocolError(agentId, `unexpected XREAD reply: ${z.prettifyError(read.error)}`);
        for (const [entryId, fields] of read.data) {
          lastId = entryId;
          const reply = parseField(ReplyEntrySchema, fieldOf(fields, 'reply'), 'reply');
          if (!reply.ok) throw protocolError(agentId, `malformed reply entry ${entryId}: ${reply.reason}`);
          if (apply(reply.value)) return;
        }
      }
    };

    read().then(
      () => undefined,
      (error: unknown) => {
        if (!closed) subscriber.error(error);
      },
    );

    return () => {
      closed = true;
      renewals.unsubscribe();
      reader.disconnect();
      // Deleting the lease is what cancels the call on its worker.
      redis.del(keys.lease, keys.reply, keys.attempts).catch(() => undefined);
    };
  });
}

function protocolError(agentId: string, message: string): CoordinationError {
  return new CoordinationError('REMOTE_PROTOCOL_ERROR', `Remote agent "${agentId}": ${message}`, { context: { agentId } });
}
