import type { AgentCallOptions, RunContext } from '@rxagents/core';
import type { RedisClient } from '../types/RedisClient';
import type { Observable, SchedulerLike, Subscription } from 'rxjs';
import { callKeys, type CallKeys, WORKER_GROUP } from './keys';
import type { CallEntry, ReplyEntry } from './protocol';
import type { RedisCommand, WorkerReader } from './WorkerReader';
import type { EntryDeletions } from './EntryDeletions';
import { claimCall, stopCall } from './callScripts';
import { leaseLostReply, remoteError, streamMissingReply } from './finalReplies';
import { listOf, resultOf } from './pipelineReplies';
import { CallAnswers } from './CallAnswers';

interface RunningCallConfig {
  readonly prefix: string;
  readonly replyMaxLen: number;
  readonly replyTtlMs: number;
  readonly claimIdleMs: number;
  readonly scheduler: SchedulerLike;
  /** Receives an answer relayed from the caller that the call's asker refused (the interrupt stays open). */
  readonly onAnswerRefused: (error: unknown) => void;
}

/** A reply before it is numbered and given its attempt (the attempt is set when it is written). */
type Reply = ReplyEntry extends infer E ? (E extends ReplyEntry ? Omit<E, 'seq' | 'attempt'> : never) : never;
type NumberedReply = Reply & { readonly seq: number };

/** How many replies one stream entry holds at most (a longer burst is written as several entries). */
const REPLIES_PER_ENTRY = 256;

/** What a worker's periodic check decided about a running call. */
export type CallVerdict = 'keep' | 'gone' | 'superseded' | 'done';

/**
 * How a call starts: `'first'`, a first delivery known to be fresh (attempt 1, its caller alive), starts at
 * once and stores its start with its first replies; `'checked'` (a claimed or older entry) first counts its
 * start and looks at the caller's lease, one round trip, and starts only when both allow it.
 */
export type StartMode = 'first' | 'checked';

/**
 * One call on a worker: its attempt, its reply stream writes, and how it stops.
 *
 * The attempts of a call are counted in the list `<call>:attempts`: each start pushes a token of its own,
 * and its attempt is the number of distinct tokens up to its token's first place in the list. A push that
 * ioredis sent again after a lost reply repeats a token already there and changes no one's attempt.
 */
export class RunningCall {
  private readonly keys: CallKeys;
  /** This start's token in the attempts list, made when first needed. */
  private madeToken: string | undefined;
  /** This start's attempt; 0 until known. */
  private attempt = 0;
  /** Whether this start's token is in the attempts list (or on its way there in a sent pipeline). */
  private counted = false;
  private readonly readAt: number;
  private subscription: Subscription | undefined;
  private settle: (() => void) | undefined;
  private finished = false;
  private callsKey = '';
  private written = 0;
  /** Replies waiting for this turn's pipeline (numbered; their attempt is set when they are written), and the promise of that pipeline. */
  private pending: NumberedReply[] = [];
  private flushed: Promise<void> | undefined;
  private acknowledgeAfterFlush = false;
  /** The count of a first delivery that stalled before its first write (see `flush`). */
  private counting: Promise<unknown> | undefined;
  /** Whether a pipeline of this call's replies went out already. */
  private flushedBefore = false;
  /** The last pipeline of this call's replies, sent or about to be: a stopped call waits for it before it tidies up. */
  private lastFlush: Promise<void> = Promise.resolve();
  /** Whether this start is being stopped for its caller's lease (once). */
  private stopping = false;
  /** The interrupts this start asked, and the answers its caller relayed to them. */
  private readonly answers: CallAnswers;

  constructor(
    private readonly redis: RedisClient,
    readonly entryId: string,
    private readonly entry: CallEntry,
    private readonly worker: string,
    private readonly config: RunningCallConfig,
    private readonly reader: WorkerReader,
    private readonly deletions: EntryDeletions,
  ) {
    this.keys = callKeys(config.prefix, entry.callId);
    this.readAt = config.scheduler.now();
    this.answers = new CallAnswers(this.keys.answers, entry.run, config.scheduler, (event) => void this.write({ kind: 'event', event }), config.onAnswerRefused);
  }

  private get token(): string {
    this.madeToken ??= crypto.randomUUID();
    return this.madeToken;
  }

  /**
   * Runs the call through `start` and resolves when it ended, failed or was stopped and its last reply
   * is stored; `agentEnded` is called as soon as the agent itself is done (its last reply may still be on its way).
   */
  async run(start: (options: AgentCallOptions) => Observable<string>, callsKey: string, mode: StartMode, agentEnded: () => void): Promise<void> {
    this.callsKey = callsKey;
    // One round trip before the agent starts: this entry takes the call, unless another entry of it did.
    const claimed = await this.claim();
    if (this.finished) return;
    if (claimed === 'gone') return this.leaseGone();
    if (claimed === 'other') return this.finish();
    if (mode === 'first') this.attempt = 1;
    else {
      // One round trip more: count this start and look at the caller's lease.
      const lease = await this.count();
      if (this.finished) return;
      if (lease === 0) return this.leaseGone('', true);
      if (this.attempt > this.entry.maxAttempts) return this.exhausted();
    }
    void this.write({ kind: 'started', worker: this.worker });
    const { context, metadata, run } = this.entry;
    const remoteRun: RunContext | undefined =
      run === undefined
        ? undefined
        : {
            ...run,
            scheduler: this.config.scheduler,
            emit: (event) => {
              if (event.runId === run.runId) this.answers.note(event);
              void this.write({ kind: 'event', event });
            },
          };
    await new Promise<void>((resolve, reject) => {
      this.settle = resolve;
      const ended = (last: Reply): void => {
        agentEnded();
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
        next: (text) => void this.write({ kind: 'chunk', text }),
        error: (error: unknown) => ended({ kind: 'error', error: remoteError(error), exhausted: false }),
        complete: () => ended({ kind: 'end' }),
      });
    });
  }

  /** Stops the agent (its `AbortSignal` fires); the entry stays pending for another worker. */
  abort(): void {
    this.finished = true;
    this.subscription?.unsubscribe();
    this.settle?.();
  }

  /** Checks the caller's lease and the attempts; stops the call when its caller left or another start took it over. */
  async check(): Promise<CallVerdict> {
    if (!this.counted) return this.finished ? 'done' : 'keep';
    // The reply stream's ttl runs from now too: a call whose agent is silent longer keeps its stream.
    // While the call asks, the answers its caller relayed are read too (see `CallAnswers`).
    const asking = this.answers.asking;
    const pipeline = this.redis.pipeline().exists(this.keys.lease).lrange(this.keys.attempts, 0, -1).pexpire(this.keys.reply, this.config.replyTtlMs);
    if (asking) this.answers.read(pipeline, this.config.replyTtlMs);
    const replies = await pipeline.exec();
    const lease = resultOf(replies, 0);
    const tokens = listOf(replies, 1);
    if (this.finished) return 'done';
    const starts = distinct(tokens);
    const rank = starts.indexOf(this.token) + 1;
    // A later start, or (after a stall) an earlier one this start did not know of: the call is another start's now.
    if (rank > 0 && (starts.length > rank || rank !== this.attempt)) {
      this.abort();
      return 'superseded';
    }
    if (lease === 0) {
      await this.leaseGone('', true);
      return 'gone';
    }
    if (asking) this.answers.take(replies, 3);
    return 'keep';
  }

  /**
   * Stops this start because its caller's lease is gone: the agent is aborted, then (once this call's
   * writes in flight are answered) a caller whose lease ran out gets a last reply saying so, and what the
   * worker's writes left of a cancelled call is deleted (see {@link stopCall}); then the entry is
   * acknowledged and deleted. `missing` is the reply for a reply stream found missing while the lease lives.
   * With `lostIfBack`, a lease found stored again by then (a caller resumed with the call's idempotency key
   * attached to it meanwhile) gets the lease-lost reply too: the agent is aborted already, and that caller
   * sends the call again when it reads it, instead of waiting for replies that never come.
   */
  private async leaseGone(missing = '', lostIfBack = false): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.abort();
    await this.lastFlush.catch(() => undefined);
    const lost = leaseLostReply(this.attempt, this.written++);
    const { lease, entry, reply, attempts } = this.keys;
    await stopCall.run(this.redis, [lease, entry, reply, attempts], [lost, lostIfBack ? lost : missing, this.config.replyMaxLen, this.config.replyTtlMs]);
    await this.acknowledge();
  }

  /**
   * Takes the call for this entry (`SET NX GET` of the call's `entry` key, only while the caller's lease
   * exists: see {@link claimCall}): `'mine'` unless another entry took it (`'other'`) or the lease is gone.
   * A caller's XADD that ioredis sent again after a lost reply adds the call twice; the agent runs for
   * the entry that took the call, and the other entry is acknowledged and deleted unrun. A restart of the
   * same entry (a claim after its worker died), and a `SET` that ioredis sent again, find its own id.
   */
  private async claim(): Promise<'mine' | 'other' | 'gone'> {
    const { lease, entry, reply } = this.keys;
    const taken = Number(await claimCall.run(this.redis, [lease, entry, reply], [this.entryId, this.config.replyTtlMs]));
    return taken === 1 ? 'mine' : taken === 2 ? 'other' : 'gone';
  }

  /** Adds this start's token to the attempts list and learns its attempt; resolves to whether the caller's lease exists (1) or not (0). */
  private async count(): Promise<number> {
    this.counted = true;
    const replies = await this.redis
      .pipeline()
      .rpush(this.keys.attempts, this.token)
      .pexpire(this.keys.attempts, this.config.replyTtlMs)
      .lrange(this.keys.attempts, 0, -1)
      .exists(this.keys.lease)
      .exec();
    this.attempt = distinct(listOf(replies, 2)).indexOf(this.token) + 1;
    return resultOf(replies, 3);
  }

  /** Says that the call was started too often, as the last attempt's final entry (the caller ignores older attempts and lower numbers). */
  private async exhausted(): Promise<void> {
    const error = { name: 'RemoteCallAttemptsError', message: `started ${this.attempt - 1} times`, code: 'REMOTE_CALL_ATTEMPTS_EXHAUSTED', retryable: true };
    this.attempt -= 1;
    this.written = Number.MAX_SAFE_INTEGER;
    await this.write({ kind: 'error', error, exhausted: true }, true);
    this.finished = true;
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
   * chunks, or the whole reply of a quick agent, including one that answers with a Promise) go out
   * together in one pipeline: stream entries of up to `REPLIES_PER_ENTRY` replies each (field `replies`;
   * field `reply` for a single one) and one PEXPIRE, so a caller blocked on the stream wakes once for a
   * batch, not once per reply. After the `last` reply the same pipeline acknowledges the call; a call
   * whose first batch is its last sends it on the worker's reading connection when that is free (see
   * {@link WorkerReader}), with the worker's next read.
   */
  private write(reply: Reply, last = false): Promise<void> {
    this.pending.push({ ...reply, seq: this.written++ } as NumberedReply);
    if (last) this.acknowledgeAfterFlush = true;
    if (this.flushed === undefined) {
      this.flushed = new Promise<void>((resolve, reject) => {
        // After the microtasks of this turn: an agent whose Promise or async iterable settles at once is done by then.
        process.nextTick(() => {
          const batch = this.pending;
          const acknowledge = this.acknowledgeAfterFlush;
          this.pending = [];
          this.flushed = undefined;
          this.acknowledgeAfterFlush = false;
          this.flush(batch, acknowledge).then((missing) => {
            resolve();
            // The reply stream is gone: the caller cancelled (or the stream expired while this worker stalled).
            if (missing) this.leaseGone(streamMissingReply(this.attempt, this.written++)).catch(() => undefined);
          }, reject);
        });
      });
      this.lastFlush = this.flushed;
      // Writes nobody awaits (chunks, events) must not become unhandled rejections; `end` and `error` await theirs.
      this.flushed.catch(() => undefined);
    }
    return this.flushed;
  }

  /**
   * Sends one batch of replies; resolves to whether the reply stream was missing. Replies are added with
   * `NOMKSTREAM` (the claim created the stream): a caller that cancelled deleted it, and a write after
   * that must not create it again, for it would live `replyTtlMs` with no one to read it.
   */
  private async flush(batch: readonly NumberedReply[], acknowledge: boolean): Promise<boolean> {
    const { reply: key } = this.keys;
    const commands: RedisCommand[] = [];
    const first = !this.flushedBefore;
    this.flushedBefore = true;
    if (!this.counted) {
      // A first delivery's first write. After a stall this long a claim may have started the call
      // elsewhere: count first (one round trip), so that these replies carry the right attempt.
      if (this.config.scheduler.now() - this.readAt >= this.config.claimIdleMs / 2) this.counting = this.count();
      // A call acknowledged in this very pipeline is never claimed: its start need not be stored.
      else if (!acknowledge || this.redis.isCluster) {
        this.counted = true;
        commands.push(['rpush', this.keys.attempts, this.token], ['pexpire', this.keys.attempts, this.config.replyTtlMs]);
      }
    }
    if (this.counting !== undefined) {
      // Later writes wait for the count too, and go out in order after this one.
      await this.counting;
      if (this.finished) return false;
      if (this.attempt > this.entry.maxAttempts) return (this.abort(), false); // The next claim says so to the caller.
    }
    const attempt = this.attempt;
    // `started` says a new attempt began; the attempt's next reply in the same entry says it as well.
    const replies = batch.length > 1 && batch[0]?.kind === 'started' ? batch.slice(1) : batch;
    for (let from = 0; from < replies.length; from += REPLIES_PER_ENTRY) {
      const json = replies.slice(from, from + REPLIES_PER_ENTRY).map((reply) => replyJson(reply, attempt));
      if (json.length === 1) commands.push(['xadd', key, 'NOMKSTREAM', 'MAXLEN', '~', this.config.replyMaxLen, '*', 'reply', json[0] as string]);
      else commands.push(['xadd', key, 'NOMKSTREAM', 'MAXLEN', '~', this.config.replyMaxLen, '*', 'replies', `[${json.join(',')}]`]);
    }
    const added = commands.length - 1;
    commands.push(['pexpire', key, this.config.replyTtlMs]);
    // The acknowledgement goes in the same batch, but not on a cluster client (a batch there must not
    // cross slots); so does the deletion of a batch of answered entries, this one's included.
    let deleted: readonly string[] = [];
    if (acknowledge && !this.redis.isCluster) {
      commands.push(['xack', this.callsKey, WORKER_GROUP, this.entryId]);
      deleted = this.deletions.add(this.entryId);
      if (deleted.length > 0) commands.push(['xdel', this.callsKey, ...deleted]);
    }
    let values: unknown[];
    try {
      if (first && acknowledge && this.reader.open) {
        // The whole reply at once: it may go out with the worker's next read, in the same socket
        // write (no other write of this call can be in flight to be overtaken).
        values = await this.reader.write(commands);
      } else {
        const pipeline = this.redis.pipeline();
        for (const [command, ...args] of commands) pipeline.call(command, ...args);
        const results = await pipeline.exec();
        for (const [error] of results ?? []) if (error !== null) throw error;
        values = (results ?? []).map(([, value]) => value);
      }
    } catch (error) {
      this.deletions.restore(deleted);
      throw error;
    }
    if (acknowledge && this.redis.isCluster) await this.acknowledge();
    // The last XADD speaks for the batch: after one that found no stream, none finds one.
    return values[added] === null;
  }
}

/** `reply`'s JSON with its attempt; a chunk's and an end's written directly, the most frequent. */
function replyJson(reply: NumberedReply, attempt: number): string {
  if (reply.kind === 'chunk') return `{"kind":"chunk","attempt":${attempt},"seq":${reply.seq},"text":${JSON.stringify(reply.text)}}`;
  if (reply.kind === 'end') return `{"kind":"end","attempt":${attempt},"seq":${reply.seq}}`;
  return JSON.stringify({ ...reply, attempt });
}

/** The distinct tokens of an attempts list, in the order of their first place: the starts, in order. */
function distinct(tokens: readonly string[]): string[] {
  return [...new Set(tokens)];
}
