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
    const [attempt, lease] = await Promise.all([this.redis.incr(this.keys.attempts), this.redis.exists(this.keys.lease)]);
    await this.redis.pexpire(this.keys.attempts, this.config.replyTtlMs);
    this.attempt = attempt;
    if (this.finished) return;
    if (lease === 0) return this.finish();
    if (attempt > this.entry.maxAttempts) {
      const error = { name: 'RemoteCallAttemptsError', message: `started ${attempt - 1} times`, code: 'REMOTE_CALL_ATTEMPTS_EXHAUSTED', retryable: true };
      // Said as the last attempt's final entry (the caller ignores older attempts and lower numbers).
      this.written = Number.MAX_SAFE_INTEGER;
      await this.write({ kind: 'error', attempt: attempt - 1, error, exhausted: true });
      return this.finish();
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
        this.write(last).then(() => this.finish().then(resolve, reject), reject);
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
    await this.redis.call('XACK', this.callsKey, WORKER_GROUP, this.entryId);
    await this.redis.call('XDEL', this.callsKey, this.entryId);
  }

  private async write(reply: UnnumberedReply): Promise<void> {
    const { reply: key } = this.keys;
    const numbered = { ...reply, seq: this.written++ };
    await Promise.all([
      this.redis.xadd(key, 'MAXLEN', '~', this.config.replyMaxLen, '*', 'reply', JSON.stringify(numbered)),
      this.redis.pexpire(key, this.config.replyTtlMs),
    ]);
  }
}

/** The agent's own failure, without the worker-side `AgentError` wrapper the caller adds again; its retryable flag kept. */
function remoteError(error: unknown): SerializedError {
  if (!(error instanceof AgentError) || error.cause === undefined) return serializeError(error);
  return { ...serializeError(error.cause), retryable: error.retryable };
}
