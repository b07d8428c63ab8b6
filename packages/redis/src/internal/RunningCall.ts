import type { AgentCallOptions, RunContext } from '@rxagents/core';
import { AgentError, type SerializedError, serializeError } from '@rxagents/core';
import type { RedisClient } from '../types/RedisClient';
import type { Observable, SchedulerLike, Subscription } from 'rxjs';
import { callKeys, type CallKeys, WORKER_GROUP } from './keys';
import type { CallEntry, UnnumberedReply } from './protocol';

interface RunningCallConfig {
  readonly prefix: string;
  readonly replyMaxLen: number;
  readonly replyTtlMs: number;
  readonly scheduler: SchedulerLike;
}

/** How many replies one stream entry holds at most (a longer burst is written as several entries). */
const REPLIES_PER_ENTRY = 256;

/** What a worker's periodic check decided about a running call. */
export type CallVerdict = 'keep' | 'gone' | 'superseded' | 'done';

/** One call on a worker: its attempt, its reply stream writes, and how it stops. */
export class RunningCall {
  private readonly keys: CallKeys;
  private attempt = 0;
  private subscription: Subscription | undefined;
  private settle: (() => void) | undefined;
  private finished = false;
  private callsKey = '';
  private written = 0;
  /** Reply entries (JSON) waiting for this turn's pipeline, and the promise of that pipeline. */
  private pending: string[] = [];
  private flushed: Promise<void> | undefined;
  private acknowledgeAfterFlush = false;

  constructor(
    private readonly redis: RedisClient,
    readonly entryId: string,
    private readonly entry: CallEntry,
    private readonly worker: string,
    private readonly config: RunningCallConfig,
  ) {
    this.keys = callKeys(config.prefix, entry.callId);
  }

  /** Runs the call through `start` and resolves when it ended, failed or was stopped. */
  async run(start: (options: AgentCallOptions) => Observable<string>, callsKey: string): Promise<void> {
    this.callsKey = callsKey;
    // One round trip: count this start, keep the counter as long as the reply, and look at the caller's lease.
    const replies = await this.redis.pipeline().incr(this.keys.attempts).pexpire(this.keys.attempts, this.config.replyTtlMs).exists(this.keys.lease).exec();
    const attempt = resultOf(replies, 0);
    const lease = resultOf(replies, 2);
    this.attempt = attempt;
    if (this.finished) return;
    if (lease === 0) return this.finish();
    if (attempt > this.entry.maxAttempts) {
      const error = { name: 'RemoteCallAttemptsError', message: `started ${attempt - 1} times`, code: 'REMOTE_CALL_ATTEMPTS_EXHAUSTED', retryable: true };
      // Said as the last attempt's final entry (the caller ignores older attempts and lower numbers).
      this.written = Number.MAX_SAFE_INTEGER;
      await this.write({ kind: 'error', attempt: attempt - 1, error, exhausted: true }, true);
      this.finished = true;
      return;
    }
    void this.write({ kind: 'started', attempt, worker: this.worker });
    const { context, metadata, run } = this.entry;
    const remoteRun: RunContext | undefined =
      run === undefined
        ? undefined
        : { ...run, scheduler: this.config.scheduler, emit: (event) => void this.write({ kind: 'event', attempt, event }) };
    await new Promise<void>((resolve, reject) => {
      this.settle = resolve;
      const ended = (last: UnnumberedReply): void => {
        this.write(last, true).then(() => {
          this.finished = true;
          resolve();
        }, reject);
      };
      this.subscription = start({
        ...(context === undefined ? {} : { context }),
        ...(metadata === undefined ? {} : { metadata }),
        ...(remoteRun === undefined ? {} : { run: remoteRun }),
      }).subscribe({
        next: (text) => void this.write({ kind: 'chunk', attempt, text }),
        error: (error: unknown) => ended({ kind: 'error', attempt, error: remoteError(error), exhausted: false }),
        complete: () => ended({ kind: 'end', attempt }),
      });
    });
  }

  /** Stops the agent (its `AbortSignal` fires); the entry stays pending for another worker. */
  abort(): void {
    this.finished = true;
    this.subscription?.unsubscribe();
    this.settle?.();
  }

  /** Checks the caller's lease and the attempt counter; stops the call when its caller left or another worker took it over. */
  async check(): Promise<CallVerdict> {
    if (this.attempt === 0) return 'keep';
    const [lease, attempts] = await Promise.all([this.redis.exists(this.keys.lease), this.redis.get(this.keys.attempts)]);
    if (this.finished) return 'done';
    if (attempts !== null && Number(attempts) > this.attempt) {
      this.abort();
      return 'superseded';
    }
    if (lease === 0) {
      this.abort();
      await this.acknowledge();
      return 'gone';
    }
    return 'keep';
  }

  private async finish(): Promise<void> {
    this.finished = true;
    await this.acknowledge();
  }

  private async acknowledge(): Promise<void> {
    const replies = await this.redis.pipeline().call('XACK', this.callsKey, WORKER_GROUP, this.entryId).call('XDEL', this.callsKey, this.entryId).exec();
    for (const [error] of replies ?? []) if (error !== null) throw error;
  }

  /**
   * Adds `reply` to the reply stream. The entries written in one turn of the event loop (a burst of
   * chunks, or `started`, a chunk and `end` of a quick agent) go out together in one pipeline: stream
   * entries of up to `REPLIES_PER_ENTRY` replies each (field `replies`; field `reply` for a single one)
   * and one PEXPIRE, so a caller blocked on the stream wakes once for a batch, not once per reply. After
   * the `last` reply the same pipeline acknowledges the call.
   */
  private write(reply: UnnumberedReply, last = false): Promise<void> {
    const numbered = { ...reply, seq: this.written++ };
    this.pending.push(JSON.stringify(numbered));
    if (last) this.acknowledgeAfterFlush = true;
    if (this.flushed === undefined) {
      this.flushed = new Promise<void>((resolve, reject) => {
        queueMicrotask(() => {
          const batch = this.pending;
          const acknowledge = this.acknowledgeAfterFlush;
          this.pending = [];
          this.flushed = undefined;
          this.acknowledgeAfterFlush = false;
          this.flush(batch, acknowledge).then(resolve, reject);
        });
      });
      // Writes nobody awaits (chunks, events) must not become unhandled rejections; `end` and `error` await theirs.
      this.flushed.catch(() => undefined);
    }
    return this.flushed;
  }

  private async flush(batch: readonly string[], acknowledge: boolean): Promise<void> {
    const { reply: key } = this.keys;
    const writes = this.redis.pipeline();
    for (let from = 0; from < batch.length; from += REPLIES_PER_ENTRY) {
      const replies = batch.slice(from, from + REPLIES_PER_ENTRY);
      if (replies.length === 1) writes.xadd(key, 'MAXLEN', '~', this.config.replyMaxLen, '*', 'reply', replies[0] as string);
      else writes.xadd(key, 'MAXLEN', '~', this.config.replyMaxLen, '*', 'replies', `[${replies.join(',')}]`);
    }
    writes.pexpire(key, this.config.replyTtlMs);
    // The acknowledgement goes in the same batch, but not on a cluster client (a batch there must not cross slots).
    if (acknowledge && !this.redis.isCluster) writes.call('XACK', this.callsKey, WORKER_GROUP, this.entryId).call('XDEL', this.callsKey, this.entryId);
    const replies = await writes.exec();
    for (const [error] of replies ?? []) if (error !== null) throw error;
    if (acknowledge && this.redis.isCluster) await this.acknowledge();
  }
}

/** The numeric reply of a pipeline's `index`th command; throws the command's error. */
function resultOf(replies: Array<[Error | null, unknown]> | null, index: number): number {
  const [error, value] = replies?.[index] ?? [new Error('the pipeline was discarded'), undefined];
  if (error !== null) throw error;
  return Number(value);
}

/** The agent's own failure, without the worker-side `AgentError` wrapper the caller adds again; its retryable flag kept. */
function remoteError(error: unknown): SerializedError {
  if (!(error instanceof AgentError) || error.cause === undefined) return serializeError(error);
  return { ...serializeError(error.cause), retryable: error.retryable };
}
