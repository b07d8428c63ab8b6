import type { RedisClient } from '../types/RedisClient';
import type { ChannelKeys } from './channelKeys';
import { type ChannelEnd, ChannelEndSchema, ORDINAL_LIMIT, ordinalOf } from './channelProtocol';
import { fieldOf, parseField } from './protocol';

/** What Redis says about a channel at one moment: its consumers, its stream's ends, and whether it ended. */
export interface ChannelView {
  /** How the channel ended, when some process ended it. */
  readonly end: ChannelEnd | undefined;
  /** How many consumers hold a live lease. */
  readonly live: number;
  /** The lowest position (last handled ordinal) of a live consumer; `undefined` with none. */
  readonly liveMin: number | undefined;
  /** The ordinal just before the oldest entry the stream still holds (entries up to it were trimmed). */
  readonly floor: number;
  /** The newest entry's ordinal; 0 when the stream holds nothing. */
  readonly last: number;
  /**
   * The entries the slowest live consumer has not handled yet (with none live, every entry the stream
   * holds): what the channel's buffer holds, across processes.
   */
  readonly backlog: number;
}

/**
 * Reads the view in two round trips (positions, stream ends and end; then the consumers' leases) and
 * forgets consumers whose lease ran out, so that a dead consumer stops counting.
 */
export async function readView(redis: RedisClient, keys: ChannelKeys): Promise<ChannelView> {
  const [positions, first, newest, endRaw] = await Promise.all([
    redis.hgetall(keys.consumers),
    redis.xrange(keys.items, '-', '+', 'COUNT', 1),
    // The newest entry below every id `XADD *` makes: one added by something else is not the channel's last.
    redis.xrevrange(keys.items, `${ORDINAL_LIMIT - 1}-0`, '-', 'COUNT', 1),
    redis.hget(keys.shared, 'end'),
  ]);
  const names = Object.keys(positions);
  const leases = await Promise.all(names.map((name) => redis.exists(`${keys.leases}${name}`)));
  const dead = names.filter((_, index) => leases[index] === 0);
  if (dead.length > 0) await redis.hdel(keys.consumers, ...dead);
  const livePositions = names.filter((_, index) => leases[index] === 1).map((name) => Number(positions[name]));
  const liveMin = livePositions.length === 0 ? undefined : Math.min(...livePositions.map((position) => (Number.isSafeInteger(position) ? position : 0)));
  const firstOrdinal = ordinalOf(first[0]?.[0] ?? '');
  const last = ordinalOf(newest[0]?.[0] ?? '') ?? 0;
  // The end entry is not an item: it takes no room in the buffer.
  const itemsLast = endRaw !== null && !(fieldOf(newest[0]?.[1] ?? null, 'entry') ?? '').includes('"kind":"item"') ? Math.max(0, last - 1) : last;
  const floor = firstOrdinal === undefined ? last : firstOrdinal - 1;
  const end = endRaw === null ? undefined : parseField(ChannelEndSchema, endRaw, 'end');
  return {
    end: end?.ok === true ? end.value : undefined,
    live: livePositions.length,
    liveMin,
    floor,
    last,
    backlog: Math.max(0, itemsLast - Math.max(liveMin ?? floor, floor)),
  };
}
