import { type Agent, type ChatOptions, configRules, CoordinationError, emitCustom, newRunId, parseConfig } from '@rxagents/core';
import type { Redis } from 'ioredis';
import { asyncScheduler, interval, Observable, type SchedulerLike, type Subscription } from 'rxjs';
import { z } from 'zod';
import { RemoteAgentError } from './errors/RemoteAgentError';
import { RemoteCallAttemptsError } from './errors/RemoteCallAttemptsError';
import { RemoteCallRestartedError } from './errors/RemoteCallRestartedError';
import { CommandBatch } from './internal/CommandBatch';
import { agentKeys, callKeys } from './internal/keys';
import { type CallEntry, parseReplies, PROTOCOL_VERSION, type ReplyEntry, streamEntries } from './internal/protocol';

/** How long one blocking read of a reply stream waits before it asks again, in ms. */
const READ_BLOCK_MS = 5_000;
/** How many reply entries one read takes at most. */
const READ_COUNT = 4_096;

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
 * The client `redis` is used for writes. Each call in flight reads its reply on a connection of its own
 * (a duplicate of `redis`); the agent keeps up to 16 of them open between calls, so sequential calls reuse
 * one, and closes them 250 ms after the last call ended (so a process that is done can exit).
 *
 * @param redis - An ioredis client; its options (password, ACL user, TLS, db) apply to every connection.
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
export function remoteAgent(redis: Redis, id: string, options: RemoteAgentOptions = {}): Agent {
  const agentId = parseConfig(configRules.id(), id, 'remoteAgent id');
  const config = parseConfig(RemoteAgentOptionsSchema, options, `remoteAgent "${agentId}"`);
  const readers = new ReaderPool(redis, config.scheduler);
  const commands = new CommandBatch(redis);
  const agent: Agent = {
    id: agentId,
    ...(config.name === undefined ? {} : { name: config.name }),
    ...(config.role === undefined ? {} : { role: config.role }),
    ...(config.goal === undefined ? {} : { goal: config.goal }),
    chat: (input, chatOptions) => remoteCall(commands, readers, agentId, config, input, chatOptions),
  };
  return agent;
}

type Config = z.output<typeof RemoteAgentOptionsSchema>;

function remoteCall(commands: CommandBatch, readers: ReaderPool, agentId: string, config: Config, input: string, { context, metadata, run }: ChatOptions): Observable<string> {
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
    // Whether a blocking read is in flight on `reader`: a reader is reused only when none is.
    let reading = false;
    const reader = readers.acquire();
    const renewals = interval(Math.max(1, Math.floor(config.leaseMs / 3)), config.scheduler).subscribe(() => {
      commands.send('SET', keys.lease, '1', 'PX', config.leaseMs).catch(() => undefined);
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
      // In one pipeline, in this order, so Redis stores the lease before any worker can read the call;
      // the first read of the reply goes out at once on the reader's connection.
      const lease = commands.send('SET', keys.lease, '1', 'PX', config.leaseMs);
      // (A cluster client sends each command alone: the call waits for its lease there.)
      const sent = (commands.cluster ? lease : Promise.resolve()).then(() =>
        Promise.all([lease, commands.send('XADD', agentKeys(config.prefix, agentId).calls, 'MAXLEN', '~', config.callsMaxLen, '*', 'call', JSON.stringify(entry))]),
      );
      let lastId = '0';
      let first = true;
      while (!closed) {
        reading = true;
        const reply = reader.call('XREAD', 'COUNT', READ_COUNT, 'BLOCK', READ_BLOCK_MS, 'STREAMS', keys.reply, lastId);
        if (first) {
          first = false;
          // A failed send fails the call; the read then in flight is dropped with its connection.
          reply.catch(() => undefined);
          await sent;
        }
        const raw = await reply.finally(() => (reading = false));
        if (closed) return;
        const read = streamEntries(raw);
        if (!read.ok) throw protocolError(agentId, `unexpected XREAD reply: ${z.prettifyError(read.error)}`);
        for (const [entryId, fields] of read.entries) {
          lastId = entryId;
          const replies = parseReplies(fields);
          if (!replies.ok) throw protocolError(agentId, `malformed reply entry ${entryId}: ${replies.reason}`);
          for (const reply of replies.value) if (apply(reply)) return;
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
      readers.release(reader, !reading);
      // Deleting the lease is what cancels the call on its worker.
      commands.send('DEL', keys.lease, keys.reply, keys.attempts).catch(() => undefined);
    };
  });
}

/** Connections kept open between calls, at most. */
const MAX_IDLE_READERS = 16;
/** How long idle connections stay open after the last call ended, in ms. */
const READER_IDLE_MS = 250;

/** The blocking-read connections of one remote agent, reused by its calls and closed when idle. */
class ReaderPool {
  private readonly idle: Redis[] = [];
  private closing: Subscription | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly scheduler: SchedulerLike,
  ) {}

  acquire(): Redis {
    const idle = this.idle.pop();
    if (idle !== undefined) return idle;
    const reader = this.redis.duplicate();
    // Its failures reach the call through the read that fails; ioredis would print them too without a listener.
    reader.on('error', () => undefined);
    return reader;
  }

  /** Takes `reader` back; `reusable` when no command is in flight on it (else it is closed). */
  release(reader: Redis, reusable: boolean): void {
    if (!reusable || reader.status !== 'ready' || this.idle.length >= MAX_IDLE_READERS) {
      reader.disconnect();
      return;
    }
    this.idle.push(reader);
    this.closing?.unsubscribe();
    this.closing = this.scheduler.schedule(() => {
      this.closing = undefined;
      for (const idle of this.idle.splice(0)) idle.disconnect();
    }, READER_IDLE_MS);
  }
}

function protocolError(agentId: string, message: string): CoordinationError {
  return new CoordinationError('REMOTE_PROTOCOL_ERROR', `Remote agent "${agentId}": ${message}`, { context: { agentId } });
}
