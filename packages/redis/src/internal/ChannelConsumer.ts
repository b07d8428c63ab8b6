import { CoordinationError, delayTimer } from '@rxagents/core';
import { ChannelItemError, type ChannelObserver, type ItemSchema } from '@rxagents/streaming';
import type { RedisClient } from '../types/RedisClient';
import { closeClient } from './closeClient';
import { duplicateClient } from './duplicateClient';
import { finalize, interval, isObservable, lastValueFrom, type SchedulerLike, Subscription } from 'rxjs';
import { RemoteChannelError } from '../errors/RemoteChannelError';
import type { ChannelKeys } from './channelKeys';
import { CHANNEL_DEAD_LETTER_MAX_LEN, type ChannelEnd, ChannelEntrySchema, entryIdOf, FOREIGN_IDS_FROM, ORDINAL_LIMIT, ordinalOf } from './channelProtocol';
import { deadLetterEntry, dropForeignEntries, FOREIGN_REASON } from './channelScripts';
import { readView } from './channelView';
import { fieldOf, parseField, StreamReadSchema } from './protocol';

/** How long one blocking read waits before it asks again, in ms. */
const READ_BLOCK_MS = 2_000;
/** How many entries one read takes at most. */
const READ_COUNT = 64;

/** What a consumer needs from its channel. */
export interface ConsumerHost<T> {
  readonly redis: RedisClient;
  readonly id: string;
  readonly keys: ChannelKeys;
  readonly leaseMs: number;
  readonly pollMs: number;
  /** How long the channel's keys (its dead-letter stream too) outlive their last write, in ms. */
  readonly retentionMs: number;
  readonly scheduler: SchedulerLike;
  readonly schema: ItemSchema<T> | undefined;
  delivered(): void;
  dropped(count: number): void;
  ended(end: ChannelEnd): void;
  report(error: unknown, item: T | undefined): void;
  left(subscription: Subscription): void;
}

/**
 * Registers a consumer (a random name in the consumers hash, with a lease renewed every third of
 * `leaseMs`) and reads the stream for it until the end entry or unsubscription.
 */
export function startConsumer<T>(host: ConsumerHost<T>, observer: Partial<ChannelObserver<T>>): Subscription {
  const { redis, keys } = host;
  const name = crypto.randomUUID();
  const lease = `${keys.leases}${name}`;
  const reader = duplicateClient(redis);
  let stopped = false;
  let position: number | undefined;

  const subscription = new Subscription(() => {
    stopped = true;
    closeClient(reader);
    host.left(subscription);
    Promise.all([redis.hdel(keys.consumers, name), redis.del(lease)]).catch((error: unknown) => host.report(error, undefined));
  });
  const renew = (): Promise<unknown> => Promise.all([redis.set(lease, '1', 'PX', host.leaseMs), ...(position === undefined ? [] : [redis.hset(keys.consumers, name, position)])]);
  subscription.add(interval(Math.max(1, Math.floor(host.leaseMs / 3)), host.scheduler).subscribe(() => void renew().catch((error: unknown) => host.report(error, undefined))));

  /** Waits `pollMs` before the next read, or until the consumer leaves: leaving cancels the timer. */
  const pause = (): Promise<void> =>
    new Promise<void>((resume) => subscription.add(delayTimer(host.pollMs, host.scheduler).pipe(finalize(() => resume())).subscribe()));

  /** Records that the entry at `ordinal` is handled: `handled` counts as delivered, otherwise as dropped. */
  const advance = (ordinal: number, handled: boolean): void => {
    position = ordinal;
    if (handled) host.delivered();
    else host.dropped(1);
    redis.hset(keys.consumers, name, ordinal).catch((error: unknown) => host.report(error, undefined));
  };

  const deliver = async (item: T): Promise<void> => {
    try {
      const result = observer.next?.(item);
      if (isObservable(result)) await lastValueFrom(result, { defaultValue: undefined });
      else await result;
    } catch (error) {
      host.report(error, item);
    }
  };

  const finish = (end: ChannelEnd): void => {
    host.ended(end);
    subscription.unsubscribe();
    try {
      if (end.kind === 'error') observer.error?.(new RemoteChannelError(host.id, end.error));
      else observer.complete?.();
    } catch (error) {
      host.report(error, undefined);
    }
  };

  const read = async (): Promise<void> => {
    await redis.set(lease, '1', 'PX', host.leaseMs);
    // A consumer that left while it registered must not register after its removal: it stops here. One that
    // leaves after its HSET is sent is removed all the same, as its HDEL follows on the same connection.
    if (stopped) return;
    const view = await readView(redis, keys);
    if (stopped) return;
    position = Math.max(view.liveMin ?? view.floor, view.floor);
    await redis.hset(keys.consumers, name, position);
    let cursor = entryIdOf(position);
    // Entries trimmed while this consumer registered were never its own: its first read counts no gap.
    let counting = false;
    while (!stopped) {
      let raw: unknown;
      try {
        raw = await reader.call('XREAD', 'COUNT', READ_COUNT, 'BLOCK', READ_BLOCK_MS, 'STREAMS', keys.items, cursor);
      } catch (error) {
        if (stopped) return;
        host.report(error, undefined);
        await pause();
        continue;
      }
      const entries = StreamReadSchema.safeParse(raw);
      if (stopped) return;
      if (!entries.success) throw new CoordinationError('CHANNEL_PROTOCOL_ERROR', `Channel "${host.id}": unexpected XREAD reply`, { context: { channelId: host.id } });
      let foreign = false;
      for (const [entryId, fields] of entries.data) {
        if (stopped) return;
        if (isAboveOrdinals(entryId)) {
          // Written by something else (`XADD *`), above every ordinal: the producers' next entries could not
          // follow it. It goes to the dead-letter stream and the stream's last id back to the last ordinal;
          // this consumer reads on from where it was (the entries after it in this read are such ones too).
          host.report(malformed(host.id, entryId, FOREIGN_REASON, host.keys.deadLetter), undefined);
          host.dropped(1);
          foreign = true;
          break;
        }
        cursor = entryId;
        const ordinal = ordinalOf(entryId);
        if (counting && ordinal !== undefined && position !== undefined && ordinal > position + 1) host.dropped(ordinal - position - 1);
        const entry = parseField(ChannelEntrySchema, fieldOf(fields, 'entry'), 'entry');
        if (ordinal === undefined || !entry.ok) {
          const reason = ordinal === undefined ? FOREIGN_REASON : entry.ok ? '' : entry.reason;
          host.report(malformed(host.id, entryId, reason, host.keys.deadLetter), undefined);
          // A failure to move it (Redis away) leaves it where it is: it is skipped all the same.
          await deadLetterEntry.run(redis, [keys.items, keys.deadLetter], [entryId, reason, name, CHANNEL_DEAD_LETTER_MAX_LEN, host.retentionMs]).catch((error: unknown) => host.report(error, undefined));
          if (ordinal === undefined) host.dropped(1);
          else advance(ordinal, false);
          continue;
        }
        if (entry.value.kind !== 'item') return finish(entry.value);
        const item = entry.value.item;
        const checked = host.schema === undefined ? { success: true as const, data: item as T } : host.schema.safeParse(item);
        if (!checked.success) {
          const issues = checked.error.issues.map((issue) => (issue.path.length === 0 ? issue.message : `${issue.path.map(String).join('.')}: ${issue.message}`));
          host.report(new ChannelItemError(host.id, item, issues, checked.error), undefined);
          advance(ordinal, false);
          continue;
        }
        await deliver(checked.data);
        // A handler that unsubscribed its own consumer (an Observable's take(n)) got the item; the consumer has left Redis.
        if (stopped) return host.delivered();
        advance(ordinal, true);
      }
      if (foreign) {
        try {
          await dropForeignEntries.run(redis, [keys.items, keys.deadLetter, keys.consumers], [FOREIGN_IDS_FROM, ORDINAL_LIMIT, position ?? 0, CHANNEL_DEAD_LETTER_MAX_LEN, host.retentionMs, name]);
        } catch (error) {
          if (stopped) return;
          host.report(error, undefined);
          await pause();
        }
        continue;
      }
      counting = true;
    }
  };

  read().catch((error: unknown) => {
    if (stopped) return;
    subscription.unsubscribe();
    // A subscriber without an error handler (a plain function) would never hear of it: onError does.
    if (observer.error === undefined) return host.report(error, undefined);
    try {
      observer.error(error);
    } catch (thrown) {
      host.report(thrown, undefined);
    }
  });
  return subscription;
}

function malformed(channelId: string, entryId: string, reason: string, deadLetter: string): CoordinationError {
  return new CoordinationError('CHANNEL_ENTRY_INVALID', `Channel "${channelId}": skipped malformed entry ${entryId} (moved to ${deadLetter}): ${reason}`, {
    context: { channelId, entryId, reason },
  });
}

/** Whether `entryId` is above every ordinal a channel writes (an id `XADD *` made). */
function isAboveOrdinals(entryId: string): boolean {
  const ms = /^(\d+)-/.exec(entryId)?.[1];
  return ms !== undefined && Number(ms) >= ORDINAL_LIMIT;
}
