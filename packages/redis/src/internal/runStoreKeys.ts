/**
 * The Redis keys of one run of a `RedisRunStore`. Every key shares the hash tag `{<runId>}` (the run id
 * with `%`, `{` and `}` percent-escaped, so no run id can end the tag early or reach another run's keys),
 * so one run lives in one Redis Cluster slot and a script over its keys never crosses slots.
 */
export interface RunStoreKeys {
  /** The stream of the run's records: the record of seq `n` is the entry `<n + 1>-0`, field `event` (JSON). */
  readonly journal: string;
  /** A hash: `name`, `status`, `records`, `createdAt`, `updatedAt`, and `append` (the id of the last append applied). */
  readonly summary: string;
  /**
   * The lease: a hash of the holder's `token`, the lease's `epoch`, `expiresAt` (ms on Redis's clock, '' for
   * never) and the holder's `host`, `pid` and `owner`; without a TTL of its own (a lapsed lease is its
   * holder's until taken), and without `token` once released (its `epoch` stays).
   */
  readonly lease: string;
}

/** `%`, `{` and `}` as `%25`, `%7B`, `%7D`: the escape is one to one, and leaves no brace in a hash tag. */
export function escapeRunId(runId: string): string {
  return runId.replace(/[%{}]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function runStoreKeys(prefix: string, runId: string): RunStoreKeys {
  const base = `${prefix}:runstore:run:{${escapeRunId(runId)}}`;
  return { journal: `${base}:journal`, summary: `${base}:summary`, lease: `${base}:lease` };
}

/**
 * The index of the store's runs: a sorted set of run ids by `createdAt`. On a Redis Cluster it lives in
 * a slot of its own, so it is written by commands of its own, never in one script with a run's keys.
 */
export function runIndexKey(prefix: string): string {
  return `${prefix}:runstore:index`;
}

/** The id of the stream entry that holds the record of `seq`. */
export function entryIdOf(seq: number): string {
  return `${seq + 1}-0`;
}
