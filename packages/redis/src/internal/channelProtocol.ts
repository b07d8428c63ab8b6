import { SerializedErrorSchema } from '@rxagents/core';
import { z } from 'zod';

/** The wire format's version, in every channel entry: a consumer skips entries of another version as malformed. */
export const CHANNEL_PROTOCOL_VERSION = 1;

const v = z.literal(CHANNEL_PROTOCOL_VERSION);
const ItemEntrySchema = z.strictObject({ v, kind: z.literal('item'), item: z.json() });
const endEntries = [
  z.strictObject({ v, kind: z.literal('complete') }),
  z.strictObject({ v, kind: z.literal('close') }),
  z.strictObject({ v, kind: z.literal('error'), error: SerializedErrorSchema }),
] as const;

/** How a channel ended, as its end entry and the shared hash's `end` field say (JSON). */
export const ChannelEndSchema = z.discriminatedUnion('kind', [...endEntries]);
export type ChannelEnd = z.infer<typeof ChannelEndSchema>;

/** One entry of a channel's stream (field `entry`, JSON): an item, or how the channel ended. */
export const ChannelEntrySchema = z.discriminatedUnion('kind', [ItemEntrySchema, ...endEntries]);
export type ChannelEntry = z.infer<typeof ChannelEntrySchema>;

/** Ordinals stay below this; an id Redis generates (`XADD *`: milliseconds since 1970) is above it, so it is never taken for one. */
export const ORDINAL_LIMIT = 1e12;
/** The first entry id above every ordinal. */
export const FOREIGN_IDS_FROM = `${ORDINAL_LIMIT}-0`;
/** How many entries a channel's dead-letter stream keeps (`MAXLEN ~`). */
export const CHANNEL_DEAD_LETTER_MAX_LEN = 10_000;

/**
 * The ordinal of a stream entry id `<ordinal>-0`: the channel numbers its entries 1, 2, 3, ... so that a
 * gap between two ids a consumer reads is the number of entries trimmed before it read them.
 * `undefined` for an id the channel did not write.
 */
export function ordinalOf(entryId: string): number | undefined {
  const match = /^(\d{1,13})-0$/.exec(entryId);
  const ordinal = match === null ? undefined : Number(match[1]);
  return ordinal !== undefined && ordinal < ORDINAL_LIMIT ? ordinal : undefined;
}

/** An entry id for `ordinal`. */
export function entryIdOf(ordinal: number): string {
  return `${ordinal}-0`;
}
