import { scheduleDelay, serializeError } from '@rxagents/core';
import { BackpressureStrategy, BufferOverflowError, ChannelClosedError } from '@rxagents/streaming';
import type { RedisClient } from '../types/RedisClient';
import type { SchedulerLike, Subscription } from 'rxjs';
import type { ChannelKeys } from './channelKeys';
import { CHANNEL_DEAD_LETTER_MAX_LEN, type ChannelEnd, ChannelEndSchema, CHANNEL_PROTOCOL_VERSION, type ChannelEntry, entryIdOf, FOREIGN_IDS_FROM, ORDINAL_LIMIT } from './channelProtocol';
import { dropForeignEntries } from './channelScripts';
import { readView } from './channelView';
import { fieldOf, parseField } from './protocol';

/** Past this many entries beyond `2 * bufferSize` a non-`DROP_OLDEST` stream is cut: a bound the channel never reaches by itself. */
const STREAM_SLACK = 1_000;
/** How many times an append retries when other producers took the ordinal it tried. */
const APPEND_TRIES = 1_000;

/** The settings of how a channel takes offers, shared by the channel's options and its producer. */
export interface OfferSettings {
  readonly bufferSize: number;
  readonly backpressure: BackpressureStrategy;
  readonly offerTimeout: number;
  readonly maxPendingOffers: number;
  readonly strictPendingOffers: boolean;
  readonly pollMs: number;
  readonly retentionMs: number;
  readonly scheduler: SchedulerLike;
}

export interface ProducerConfig extends OfferSettings {
  readonly id: string;
  readonly keys: ChannelKeys;
}

/** The local end state; `open` until this process ended the channel or learnt that another one did. */
export type ChannelState = 'open' | 'completed' | 'closed' | 'errored';

interface Offer {
  readonly item: unknown;
  settled: boolean;
  storing: boolean;
  resolve(accepted: boolean): void;
  reject(error: unknown): void;
  timer?: Subscription;
  wake?: () => void;
}

const stateOf = (end: ChannelEnd): ChannelState => (end.kind === 'complete' ? 'completed' : end.kind === 'close' ? 'closed' : 'errored');

/** The producer side of a Redis channel: the ordered queue of this process's offers, the strategies, and the end entry. */
export class ChannelProducer {
  emitted = 0;
  dropped = 0;
  state: ChannelState = 'open';
  failure: unknown;
  /** The slowest live consumer's backlog as this producer last read it (`BLOCK`, `DROP_NEWEST`, `ERROR`). */
  backlog = 0;
  private requested: ChannelEnd | undefined;
  /** This process's offers in order: the one being stored at `head`, the ones waiting after it. */
  private readonly queue: (Offer | undefined)[] = [];
  private head = 0;
  private pending = 0;
  private draining: Promise<void> | undefined;
  private next = 1;
  /** This process's name for the channel: it names its appends, its claim on the end and its shared counters. */
  readonly token = crypto.randomUUID();
  private appends = 0;
  private ending: Promise<void> | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly config: ProducerConfig,
  ) {}

  get pendingOffers(): number {
    return this.pending;
  }

  /** The state metrics show: the end this process asked for counts from the moment it asked. */
  get shownState(): ChannelState {
    return this.state === 'open' && this.requested !== undefined ? stateOf(this.requested) : this.state;
  }

  offer(item: unknown): Promise<boolean> {
    if (this.state !== 'open' || this.requested !== undefined) return Promise.reject(this.closedError());
    const { backpressure, maxPendingOffers, strictPendingOffers, id } = this.config;
    // Besides the offer being stored, at most maxPendingOffers wait (queued behind it, or for room).
    if (backpressure === BackpressureStrategy.BLOCK && this.pending > maxPendingOffers) {
      if (strictPendingOffers) return Promise.reject(new BufferOverflowError(id, maxPendingOffers, 'the pending offers queue'));
      this.countDropped();
      return Promise.resolve(false);
    }
    return new Promise<boolean>((resolve, reject) => {
      const offer: Offer = { item, settled: false, storing: false, resolve, reject };
      if (backpressure === BackpressureStrategy.BLOCK) {
        offer.timer = scheduleDelay(this.config.scheduler, this.config.offerTimeout, () => {
          if (!offer.storing) this.refuse(offer);
        });
      }
      this.queue.push(offer);
      this.pending += 1;
      this.draining ??= this.drain().finally(() => (this.draining = undefined));
    });
  }

  /**
   * Ends the channel: `complete` after this process's queued offers, `error`/`close` refusing them. Resolves
   * once the end entry is stored; one that failed (Redis away) may be asked for again, and new offers stay refused meanwhile.
   */
  end(end: ChannelEnd, failure?: unknown): Promise<void> {
    if (this.ending !== undefined || this.state !== 'open') return this.ending ?? Promise.resolve();
    this.requested = end;
    // Offers waiting for room (BLOCK) are parked offers: `error` and `close` drop them. Under the other
    // strategies queued offers were accepted (as a local channel's buffered items): `error` stores them first.
    if (end.kind === 'close' || (end.kind === 'error' && this.config.backpressure === BackpressureStrategy.BLOCK)) {
      this.refuseQueued(end.kind === 'error' ? new ChannelClosedError(this.config.id, 'errored', failure) : undefined);
    }
    const ending = (async () => {
      await this.draining;
      if (await this.claimEnd()) {
        await this.redis.hset(this.config.keys.shared, 'end', JSON.stringify(end));
        const ordinal = await this.append(end, []);
        if (end.kind === 'close') await this.redis.call('XTRIM', this.config.keys.items, 'MINID', entryIdOf(ordinal));
        this.learn(end, failure);
      } else {
        const stored = parseField(ChannelEndSchema, (await this.redis.hget(this.config.keys.shared, 'end')) ?? undefined, 'end');
        this.learn(stored.ok ? stored.value : end, failure);
      }
      await this.expire();
    })();
    this.ending = ending;
    ending.catch(() => {
      if (this.ending === ending && this.state === 'open') this.ending = undefined;
    });
    return ending;
  }

  /** Takes an end another process wrote (read by a consumer or an offer here): offers still queued are refused. */
  learn(end: ChannelEnd, failure?: unknown): void {
    if (this.state !== 'open') return;
    this.state = stateOf(end);
    this.failure = end.kind === 'error' ? (failure ?? end.error) : undefined;
    this.refuseQueued(end.kind === 'close' ? undefined : this.closedError());
  }

  closedError(): ChannelClosedError {
    const shown = this.shownState;
    const state = shown === 'open' ? 'completed' : shown;
    return new ChannelClosedError(this.config.id, state, state === 'errored' ? this.failure : undefined);
  }

  /** `error(failure)` as the entry a consumer reads. */
  static errorEnd(failure: unknown): ChannelEnd {
    return { v: CHANNEL_PROTOCOL_VERSION, kind: 'error', error: serializeError(failure) };
  }

  private async drain(): Promise<void> {
    while (this.head < this.queue.length) {
      const offer = this.queue[this.head] as Offer;
      if (!offer.settled) {
        try {
          await this.store(offer);
        } catch (error) {
          this.settle(offer);
          offer.reject(error);
        }
      }
      this.dequeue();
    }
  }

  /** Takes the offer at `head` off the queue in O(1); the taken slots are reclaimed now and then, so a long queue does not keep them all. */
  private dequeue(): void {
    this.queue[this.head] = undefined;
    this.head += 1;
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    } else if (this.head > 1_024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
  }

  /** Drops (counted) every queued offer not being stored: resolves it `false`, or rejects it with `error`. */
  private refuseQueued(error?: unknown): void {
    for (let at = this.head; at < this.queue.length; at++) {
      const offer = this.queue[at] as Offer;
      if (!offer.storing) this.refuse(offer, error);
    }
  }

  private async store(offer: Offer): Promise<void> {
    const { backpressure, bufferSize, keys } = this.config;
    const entry: ChannelEntry = { v: CHANNEL_PROTOCOL_VERSION, kind: 'item', item: offer.item as never };
    for (;;) {
      if (backpressure === BackpressureStrategy.DROP_OLDEST) {
        const end = await this.redis.hget(keys.shared, 'end');
        if (this.endedIn(end, offer)) return;
        offer.storing = true;
        await this.append(entry, ['MAXLEN', '=', bufferSize]);
        return this.accept(offer);
      }
      const view = await readView(this.redis, keys);
      if (offer.settled) return;
      if (view.end !== undefined) return this.learn(view.end);
      this.backlog = view.backlog;
      if (view.backlog < bufferSize) {
        offer.storing = true;
        const trim = view.liveMin === undefined ? [] : [this.redis.call('XTRIM', keys.items, 'MINID', entryIdOf(view.liveMin + 1))];
        await Promise.all([this.append(entry, ['MAXLEN', '~', 2 * bufferSize + STREAM_SLACK]), ...trim]);
        this.backlog = view.backlog + 1;
        return this.accept(offer);
      }
      if (backpressure === BackpressureStrategy.DROP_NEWEST) return this.refuse(offer);
      if (backpressure === BackpressureStrategy.ERROR) return this.refuse(offer, new BufferOverflowError(this.config.id, bufferSize));
      await new Promise<void>((resume) => {
        const poll = scheduleDelay(this.config.scheduler, this.config.pollMs, resume);
        // Settled meanwhile (timed out, refused by an end): it stops waiting at once and its poll is cancelled.
        offer.wake = () => {
          poll.unsubscribe();
          resume();
        };
      });
    }
  }

  private endedIn(raw: string | null, offer: Offer): boolean {
    if (offer.settled) return true;
    if (raw === null) return false;
    const end = parseField(ChannelEndSchema, raw, 'end');
    if (end.ok) this.learn(end.value);
    return end.ok;
  }

  /**
   * Claims the right to write the end (the first process to end the channel wins). The claim names this
   * producer, so a claim that ioredis sent again after a reconnect, and that Redis had already stored,
   * still counts as won.
   */
  private async claimEnd(): Promise<boolean> {
    const { shared } = this.config.keys;
    if ((await this.redis.hsetnx(shared, 'ender', this.token)) === 1) return true;
    return (await this.redis.hget(shared, 'ender')) === this.token;
  }

  /**
   * Appends `entry` as the next ordinal; when another producer took it, re-reads the stream's last id and
   * tries the next one. Each append is named (field `by`): when the ordinal was taken by this very append
   * (ioredis sent the `XADD` again after a reconnect, and Redis had stored the first one) it is not stored twice.
   */
  private async append(entry: ChannelEntry, trim: readonly (string | number)[]): Promise<number> {
    const json = JSON.stringify(entry);
    const by = `${this.token}:${this.appends++}`;
    for (let tries = 1; ; tries++) {
      const ordinal = this.next;
      try {
        await this.redis.call('XADD', this.config.keys.items, ...trim, entryIdOf(ordinal), 'entry', json, 'by', by);
        return this.appended(ordinal);
      } catch (error) {
        if (!(error instanceof Error && error.message.includes('equal or smaller')) || tries >= APPEND_TRIES) throw error;
        const [stored] = await this.redis.xrange(this.config.keys.items, entryIdOf(ordinal), entryIdOf(ordinal));
        if (stored !== undefined && fieldOf(stored[1], 'by') === by) return this.appended(ordinal);
        this.next = (await this.lastOrdinal()) + 1;
      }
    }
  }

  private appended(ordinal: number): number {
    this.next = ordinal + 1;
    this.expire().catch(() => undefined);
    return ordinal;
  }

  /**
   * The stream's last ordinal. An entry something else added with an id above every ordinal (`XADD *`)
   * would make every later ordinal refused: it is moved to the dead-letter stream first, and the stream's
   * last id set back (see {@link dropForeignEntries}).
   */
  private async lastOrdinal(): Promise<number> {
    const info = (await this.redis.call('XINFO', 'STREAM', this.config.keys.items)) as unknown[];
    const at = info.indexOf('last-generated-id');
    const last = Number(String(info[at + 1]).split('-')[0]);
    if (Number.isSafeInteger(last) && last < ORDINAL_LIMIT) return last;
    const { items, deadLetter, consumers } = this.config.keys;
    const repaired = await dropForeignEntries.run(this.redis, [items, deadLetter, consumers], [FOREIGN_IDS_FROM, ORDINAL_LIMIT, this.next - 1, CHANNEL_DEAD_LETTER_MAX_LEN, this.config.retentionMs, this.token]);
    return Number(repaired);
  }

  private async expire(): Promise<void> {
    const { keys, retentionMs } = this.config;
    await Promise.all([keys.items, keys.consumers, keys.shared].map((key) => this.redis.pexpire(key, retentionMs)));
  }

  private accept(offer: Offer): void {
    this.settle(offer);
    this.emitted += 1;
    // Counters are stored as this process's totals (field `emitted:<token>`): a write sent again after a lost reply stores the same total.
    void this.redis.hset(this.config.keys.shared, `emitted:${this.token}`, this.emitted).catch(() => undefined);
    offer.resolve(true);
  }

  /** Drops `offer` (counted): resolves `false`, or rejects with `error`. */
  private refuse(offer: Offer, error?: unknown): void {
    if (offer.settled) return;
    this.settle(offer);
    this.countDropped();
    if (error === undefined) offer.resolve(false);
    else offer.reject(error);
  }

  private settle(offer: Offer): void {
    if (offer.settled) return;
    offer.settled = true;
    this.pending -= 1;
    offer.timer?.unsubscribe();
    offer.wake?.();
  }

  countDropped(count = 1): void {
    this.dropped += count;
    void this.redis.hset(this.config.keys.shared, `dropped:${this.token}`, this.dropped).catch(() => undefined);
  }
}
