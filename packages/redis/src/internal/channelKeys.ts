/**
 * The Redis keys of one channel, all sharing the hash tag `{channelId}` so that they live in one Redis
 * Cluster slot and a pipeline over them never crosses slots.
 */
export interface ChannelKeys {
  /** The stream of entries: items and the end entry, each with the id `<ordinal>-0`. */
  readonly items: string;
  /** A hash: consumer name -> ordinal of the last entry it has handled. */
  readonly consumers: string;
  /** A hash: the shared counters (each process's totals, `emitted:<process>`, `delivered:<process>`, `dropped:<process>`) and the end (`end`, JSON). */
  readonly shared: string;
  /** The prefix of the consumers' lease keys (`<leases><consumer>`). */
  readonly leases: string;
  /** Entries of the stream the channel did not write, or could not read, with the reason: moved here by the consumer that found them. */
  readonly deadLetter: string;
}

export function channelKeys(prefix: string, channelId: string): ChannelKeys {
  const base = `${prefix}:channel:{${channelId}}`;
  return { items: `${base}:items`, consumers: `${base}:consumers`, shared: `${base}:shared`, leases: `${base}:lease:`, deadLetter: `${base}:dead` };
}
