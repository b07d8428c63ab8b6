import { hostname } from 'node:os';
import { type Agent, delayTimer, stream } from '@rxagents/core';
import { OutageReports } from './OutageReports';
import { processWarning } from './processWarning';
import type { RedisClient } from '../types/RedisClient';
import { interval, lastValueFrom, Subject, type Subscription, takeUntil } from 'rxjs';
import { z } from 'zod';
import { agentKeys, callKeys, WORKER_GROUP } from './keys';
import { RedisClock } from './RedisClock';
import { RunningCall } from './RunningCall';
import { WorkerReader } from './WorkerReader';
import { withRun } from './withRun';
import { EntryDeletions } from './EntryDeletions';
import { retakeClaim } from './callScripts';
import { AutoClaimSchema, fieldOf, parseCall, readableCallId, type ReplyEntry, StreamEntrySchema, streamEntries } from './protocol';
import { ServeAgentOptionsSchema, type ServedAgent } from '../ServeAgentOptions';

/** How long one blocking read of the call stream waits before it asks again, in ms. */
const READ_BLOCK_MS = 2_000;
/** How many entries one XRANGE of the call stream takes (looking for another entry of a refused call). */
const RANGE_PAGE = 1_000;
const EntriesSchema = z.array(StreamEntrySchema);

type Config = z.output<typeof ServeAgentOptionsSchema>;

/**
 * One worker of an agent id, as `serveAgent` starts it: reads the calls of the agent's consumer group, runs
 * up to `concurrency` of them at once, confirms them every `leaseCheckMs` and claims those of dead workers.
 */
export class Worker implements ServedAgent {
  readonly consumer: string;
  private readonly keys;
  private readonly callConfig: Config & { readonly onAnswerRefused: (error: unknown) => void };
  private readonly reader: WorkerReader;
  private readonly deletions: EntryDeletions;
  private readonly calls = new Map<string, RunningCall>();
  /** The calls whose agent runs: what `concurrency` bounds (a call whose agent is done may still be writing its last reply). */
  private readonly busy = new Set<RunningCall>();
  private readonly ticks: Subscription;
  private readonly outages: OutageReports;
  private stopping = false;
  /** Fires when the worker stops: it ends a pause before a retry, so no timer outlives the worker. */
  private readonly stopped = new Subject<void>();
  private ticking = false;
  private slotFreed: (() => void) | undefined;
  private drained: (() => void) | undefined;
  private lastClaimAt = -Infinity;
  /**
   * Calls claimed from dead workers that wait for a slot here, oldest first, with when they were claimed:
   * each freed slot goes to them before a new call is read, so new calls cannot starve them.
   */
  private readonly claimed = new Map<string, { readonly fields: readonly string[] | null; readonly at: number; released: boolean }>();
  /** Slots held for released claimed calls being taken back (`XCLAIM` with a minimum idle time) before they start. */
  private retaking = 0;
  private readonly clock: RedisClock;
  private claimCursor = '0-0';

  constructor(
    private readonly redis: RedisClient,
    private readonly agent: Agent,
    private readonly config: Config,
  ) {
    this.consumer = config.consumer ?? `${hostname()}-${process.pid}-${crypto.randomUUID().slice(0, 8)}`;
    this.keys = agentKeys(config.prefix, agent.id);
    const warn = processWarning('RXAGENTS_REDIS_WORKER');
    // The default warning says when Redis is back, too; an onError of yours gets the failures only.
    const back = config.onError === undefined ? () => warn(`worker of "${agent.id}": Redis is reachable again`) : undefined;
    this.outages = new OutageReports(redis, config.onError ?? warn, back);
    this.callConfig = { ...config, onAnswerRefused: (error) => this.report(error) };
    this.reader = new WorkerReader(redis);
    this.deletions = new EntryDeletions(redis, this.keys.calls);
    this.clock = new RedisClock(redis, config.scheduler);
    this.ticks = interval(config.leaseCheckMs, config.scheduler).subscribe(() => {
      // A tick slower than leaseCheckMs (Redis is slow or away) is not overlapped by the next one.
      if (this.ticking) return;
      this.ticking = true;
      this.tick()
        .catch((error: unknown) => this.report(error))
        .finally(() => (this.ticking = false));
    });
    this.readLoop().catch((error: unknown) => this.report(error));
  }

  get running(): number {
    return this.calls.size;
  }

  drain(): Promise<void> {
    this.stop();
    return new Promise<void>((resolve) => {
      if (this.calls.size === 0) return resolve(this.finish());
      this.drained = () => resolve(this.finish());
    });
  }

  close(): Promise<void> {
    this.stop();
    for (const call of this.calls.values()) call.abort();
    this.calls.clear();
    this.busy.clear();
    return this.finish();
  }

  private stop(): void {
    this.stopping = true;
    // Left pending, unconfirmed: another worker claims them after claimIdleMs.
    this.claimed.clear();
    this.stopped.next();
    this.reader.close();
    this.slotFreed?.();
  }

  /** Stops the ticks and deletes the answered entries still in the call stream (a failure leaves them to the stream's trimming). */
  private finish(): Promise<void> {
    this.ticks.unsubscribe();
    this.outages.close();
    // Not while the connection is down: closing would wait for it.
    return this.redis.status === 'ready' ? this.deletions.deleteWaiting().catch(() => undefined) : Promise.resolve();
  }

  private report(error: unknown): void {
    if (!this.stopping) this.outages.report(error);
  }

  private async readLoop(): Promise<void> {
    if (!(await this.ensureGroup())) return;
    await this.clock.measure().catch((error: unknown) => this.report(error));
    while (!this.stopping) {
      const free = this.config.concurrency - this.busy.size - this.retaking;
      if (free <= 0) {
        await new Promise<void>((resolve) => (this.slotFreed = resolve));
        this.slotFreed = undefined;
        continue;
      }
      let raw: unknown;
      try {
        raw = await this.reader.readBlocking('xreadgroup', 'GROUP', WORKER_GROUP, this.consumer, 'COUNT', free, 'BLOCK', READ_BLOCK_MS, 'STREAMS', this.keys.calls, '>');
      } catch (error) {
        if (this.stopping) return;
        if (isNoGroup(error)) {
          // The group is made anew from the stream's start: the answered entries still waiting for deletion go first, or they would run again.
          await this.deletions.deleteWaiting().catch(() => undefined);
          if (!(await this.ensureGroup())) return;
        } else {
          this.report(error);
          await this.pause(this.config.leaseCheckMs);
        }
        continue;
      }
      if (this.stopping) return;
      const read = streamEntries(raw);
      if (!read.ok) {
        // Reading again at once would take the next calls into the same fate: every call this read took is
        // left to a claim after `claimIdleMs`. A pause leaves new calls to the other workers meanwhile.
        this.report(new Error(`unexpected XREADGROUP reply: ${z.prettifyError(read.error)}`));
        await this.pause(Math.min(1_000, this.config.claimIdleMs / 2));
        continue;
      }
      // A call running here is read again only from a group created anew (Redis lost the old one): it runs once.
      for (const [entryId, fields] of read.entries) if (!this.calls.has(entryId)) this.start(entryId, fields, true);
    }
  }

  /**
   * Creates the consumer group unless it exists; a failure (Redis unreachable past the client's retries) is
   * reported and tried again every `leaseCheckMs`, so a worker started while Redis is away serves once it
   * is back. False when the worker stopped first.
   */
  private async ensureGroup(): Promise<boolean> {
    while (!this.stopping) {
      try {
        await this.redis.call('XGROUP', 'CREATE', this.keys.calls, WORKER_GROUP, '0', 'MKSTREAM');
        return true;
      } catch (error) {
        if (error instanceof Error && error.message.includes('BUSYGROUP')) return true;
        this.report(error);
        await this.pause(this.config.leaseCheckMs);
      }
    }
    return false;
  }

  /** Waits `ms` on the worker's scheduler before a read or a group creation is tried again; ends at once when the worker stops. */
  private async pause(ms: number): Promise<void> {
    if (this.stopping) return;
    await lastValueFrom(delayTimer(ms, this.config.scheduler).pipe(takeUntil(this.stopped)), { defaultValue: 0 });
  }

  /** Runs one entry (a first delivery or a claimed one); invalid entries go to the dead-letter stream. */
  private start(entryId: string, fields: readonly string[] | null, firstDelivery: boolean): void {
    const parsed = parseCall(fieldOf(fields, 'call'));
    const reason = !parsed.ok ? parsed.reason : parsed.value.agentId !== this.agent.id ? `the call is for agent "${parsed.value.agentId}"` : undefined;
    if (!parsed.ok || reason !== undefined) {
      const why = reason ?? 'invalid';
      this.deadLetter(entryId, fields, why).catch((error: unknown) => this.report(error));
      // A caller whose call id can still be read is told at once, instead of waiting for its timeout.
      const callId = readableCallId(fieldOf(fields, 'call'));
      if (callId !== undefined) this.refuse(entryId, callId, why).catch((error: unknown) => this.report(error));
      return;
    }
    const call = new RunningCall(this.redis, entryId, parsed.value, this.consumer, this.callConfig, this.reader, this.deletions);
    this.calls.set(entryId, call);
    this.busy.add(call);
    call
      .run(({ run, ...options }) => stream(withRun(this.agent, run, parsed.value.trace), parsed.value.input, options), this.keys.calls, firstDelivery && this.fresh(entryId, parsed.value.leaseMs) ? 'first' : 'checked', () => this.agentEnded(call))
      .catch((error: unknown) => this.report(error))
      .finally(() => this.release(entryId, call));
  }

  /**
   * Whether an entry is younger than half its caller's lease by Redis's clock: its caller stored the lease
   * just before adding it, so the lease is alive (or was deleted by a cancellation, which also deleted an
   * entry not yet read). Unknown (no lease in the entry, no clock measured yet, a cluster whose nodes'
   * clocks may differ): false, and the call is checked before it starts.
   */
  private fresh(entryId: string, leaseMs: number | undefined): boolean {
    if (leaseMs === undefined) return false;
    const age = this.clock.ageOf(entryId);
    return age !== undefined && age < leaseMs / 2;
  }

  /** Frees `call`'s slot as soon as its agent is done: the next read goes out while its last reply is stored. */
  private agentEnded(call: RunningCall): void {
    if (!this.busy.delete(call)) return;
    this.startClaimed();
    this.slotFreed?.();
  }

  private release(entryId: string, call: RunningCall): void {
    if (this.calls.get(entryId) === call) this.calls.delete(entryId);
    this.busy.delete(call);
    this.startClaimed();
    this.slotFreed?.();
    if (this.calls.size === 0) this.drained?.();
  }

  /**
   * Answers a call it will not run with a final error reply, as its first and only attempt's, when the
   * refused entry `entryId` is the call's own: no earlier entry of the call stream carries its id, and it
   * has no reply yet. An entry that copies the id of another call (ids can be read from the stream) gets
   * no answer, which that call's caller would take for its own.
   */
  private async refuse(entryId: string, callId: string, reason: string): Promise<void> {
    const { reply } = callKeys(this.config.prefix, callId);
    // In this order: a call's entry is deleted only after its reply is written.
    if (await this.carriedBefore(entryId, callId)) return;
    if ((await this.redis.exists(reply)) > 0) return;
    const error = { name: 'RemoteCallRefusedError', message: `the worker of agent "${this.agent.id}" refused the call: ${reason}`, code: 'REMOTE_CALL_REFUSED', retryable: false };
    const entry: ReplyEntry = { kind: 'error', attempt: 1, seq: 0, error, exhausted: false };
    await this.redis.xadd(reply, 'MAXLEN', '~', this.config.replyMaxLen, '*', 'reply', JSON.stringify(entry));
    await this.redis.call('PEXPIRE', reply, this.config.replyTtlMs);
  }

  /** Whether an entry of the call stream before `entryId` carries the call id `callId` (read a page at a time). */
  private async carriedBefore(entryId: string, callId: string): Promise<boolean> {
    for (let start = '-'; ; ) {
      const page = EntriesSchema.safeParse(await this.redis.call('XRANGE', this.keys.calls, start, `(${entryId}`, 'COUNT', RANGE_PAGE));
      if (!page.success) throw new Error(`unexpected XRANGE reply: ${z.prettifyError(page.error)}`);
      for (const [, fields] of page.data) if (readableCallId(fieldOf(fields, 'call')) === callId) return true;
      const last = page.data.at(-1);
      if (last === undefined || page.data.length < RANGE_PAGE) return false;
      start = `(${last[0]}`;
    }
  }

  private async deadLetter(entryId: string, fields: readonly string[] | null, reason: string): Promise<void> {
    await this.redis.xadd(
      this.keys.deadLetter,
      'MAXLEN',
      '~',
      this.config.deadLetterMaxLen,
      '*',
      'reason',
      reason,
      'entryId',
      entryId,
      'consumer',
      this.consumer,
      'fields',
      JSON.stringify(fields ?? []),
    );
    await this.redis.call('XACK', this.keys.calls, WORKER_GROUP, entryId);
    await this.redis.call('XDEL', this.keys.calls, entryId);
  }

  /**
   * Gives the free slots to the claimed calls waiting for one, before the read loop reads new calls for them.
   * A released one (see {@link tick}) is taken back first, only if it is still this worker's (see {@link retakeClaim}).
   */
  private startClaimed(): void {
    for (const [entryId, { fields, released }] of this.claimed) {
      if (this.stopping || this.busy.size + this.retaking >= this.config.concurrency) return;
      this.claimed.delete(entryId);
      if (this.calls.has(entryId)) continue;
      if (!released) {
        this.start(entryId, fields, false);
        continue;
      }
      this.retaking += 1;
      retakeClaim
        .run(this.redis, [this.keys.calls], [WORKER_GROUP, this.consumer, entryId])
        .then(
          (taken) => {
            this.retaking -= 1;
            if (!this.stopping && Number(taken) === 1 && !this.calls.has(entryId)) this.start(entryId, fields, false);
          },
          (error: unknown) => {
            this.retaking -= 1;
            // A group Redis lost holds the call no more: it is read again once the read loop creates the group.
            if (!isNoGroup(error)) this.report(error);
          },
        )
        .finally(() => {
          this.startClaimed();
          this.slotFreed?.();
        });
    }
  }

  /**
   * Confirms the running calls (and the claimed calls waiting for a slot), stops those whose caller left or
   * which another worker took over, and claims abandoned calls every `claimIdleMs / 2`, however busy the
   * worker is: up to `concurrency` of them wait here for the next free slots, ahead of new calls. One that
   * waited `claimIdleMs / 2` without a slot is released (no longer confirmed), so that a worker with room
   * may claim it; it keeps its place here and is taken back when a slot frees, unless that worker took it.
   */
  private async tick(): Promise<void> {
    // A draining worker goes on confirming and checking its running calls (so a caller's cancellation still
    // aborts them, and no other worker claims them); it only stops claiming new ones.
    if (this.stopping && this.calls.size === 0) return;
    const calls = [...this.calls.values()];
    const [verdicts] = await Promise.all([Promise.all(calls.map((call) => call.check())), this.clock.measure(), this.deletions.deleteWaiting()]);
    const kept = calls.filter((_, index) => verdicts[index] === 'keep').map((call) => call.entryId);
    const now = this.config.scheduler.now();
    for (const [entryId, waiting] of this.claimed) {
      if (now - waiting.at >= this.config.claimIdleMs / 2) waiting.released = true;
      else kept.push(entryId);
    }
    const room = this.config.concurrency - this.claimed.size;
    const claiming = room > 0 && now - this.lastClaimAt >= this.config.claimIdleMs / 2;
    let raw: unknown;
    try {
      if (kept.length > 0) await this.redis.call('XCLAIM', this.keys.calls, WORKER_GROUP, this.consumer, 0, ...kept, 'JUSTID');
      if (!claiming || this.stopping) return;
      this.lastClaimAt = now;
      raw = await this.redis.call('XAUTOCLAIM', this.keys.calls, WORKER_GROUP, this.consumer, this.config.claimIdleMs, this.claimCursor, 'COUNT', room);
    } catch (error) {
      // No group yet (the read loop's first creation failed while Redis was away) or no more (Redis lost its
      // data): nothing is pending in it to confirm or to claim, and the read loop creates it on its next read.
      if (isNoGroup(error)) return;
      throw error;
    }
    const claimed = AutoClaimSchema.safeParse(raw);
    if (!claimed.success) throw new Error(`unexpected XAUTOCLAIM reply: ${z.prettifyError(claimed.error)}`);
    const [cursor, entries] = claimed.data;
    this.claimCursor = cursor;
    if (this.stopping) return;
    const at = this.config.scheduler.now();
    for (const [entryId, fields] of entries) if (!this.calls.has(entryId)) this.claimed.set(entryId, { fields, at, released: false });
    this.startClaimed();
  }
}

/** Whether `error` is Redis saying that the call stream or its consumer group does not exist. */
function isNoGroup(error: unknown): boolean {
  return error instanceof Error && error.message.includes('NOGROUP');
}
