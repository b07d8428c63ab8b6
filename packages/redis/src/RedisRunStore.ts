import {
  ConfigError,
  configRules,
  newRunId,
  parseConfig,
  type RunEvent,
  RunLeasedError,
  RunLeaseLostError,
  type RunLease,
  type RunLeaseHolder,
  type RunLeaseOptions,
  RunLeaseOptionsSchema,
  type RunListOptions,
  type RunRecord,
  RunStoreError,
  type RunStore,
  type RunSummary,
} from '@rxagents/core';
import { z } from 'zod';
import { MalformedRunEntryError } from './errors/MalformedRunEntryError';
import { checkClient } from './internal/checkClient';
import { HOST, processIsGone } from './internal/processes';
import { journalRecords } from './internal/journalRecords';
import { runStoreFailure } from './internal/runStoreFailure';
import { entryIdOf, runIndexKey, type RunStoreKeys, runStoreKeys } from './internal/runStoreKeys';
import { checkEvents, checkRunId, checkSeq, delayArgument, endStatusOf, replyAs, SUMMARY_FIELDS, summaryOf, ttlArgument } from './internal/runStoreReplies';
import * as scripts from './internal/runStoreScripts';
import type { RedisClient } from './types/RedisClient';

/**
 * The options of {@link RedisRunStore}, checked by this schema (bad values fail with a `ConfigError`
 * naming the field).
 *
 * @example
 * ```ts
 * import { RedisRunStoreOptionsSchema } from '@rxagents/redis';
 *
 * console.log(RedisRunStoreOptionsSchema.parse({}).pageSize); // 1000
 * console.log(RedisRunStoreOptionsSchema.safeParse({ retainFinishedMs: 0 }).success); // false
 * ```
 */
export const RedisRunStoreOptionsSchema = z.strictObject(
  {
    /** The prefix of every Redis key of the store (`<prefix>:runstore:...`); the same in every process that shares the runs. */
    prefix: configRules.nonEmptyString().default('rxagents'),
    /** How long a finished run (its root's `run-end` appended) is kept, in ms; by default it is kept until `expire` or `delete`. */
    retainFinishedMs: configRules.positiveInt(315_360_000_000).optional(),
    /** How many entries one `XRANGE` of `read` takes, and how many summaries `list` asks for at once. */
    pageSize: configRules.positiveInt(100_000).default(1_000),
  },
  { error: 'must be an object' },
);

/**
 * The options of {@link RedisRunStore}; every field is optional.
 *
 * @example
 * ```ts
 * import type { RedisRunStoreOptions } from '@rxagents/redis';
 *
 * const options: RedisRunStoreOptions = { prefix: 'shop', retainFinishedMs: 7 * 86_400_000 };
 * console.log(options.retainFinishedMs); // 604800000
 * ```
 */
export type RedisRunStoreOptions = z.input<typeof RedisRunStoreOptionsSchema>;

type Config = z.output<typeof RedisRunStoreOptionsSchema>;

const AppendReplySchema = z.union([z.tuple([z.literal('ok'), z.number()]), z.tuple([z.literal('lease-lost')]), z.tuple([z.literal('not-started')]), z.tuple([z.literal('damaged'), z.string()])]);
const AcquireReplySchema = z.union([z.tuple([z.literal(1), z.number(), z.number().int().positive()]), z.tuple([z.literal(0), z.number(), z.string(), z.string(), z.string(), z.string()])]);
const RenewReplySchema = z.union([z.tuple([z.literal(1), z.number(), z.number().int().positive()]), z.tuple([z.literal(0)])]);
const RunListOptionsSchema = z.strictObject({ status: z.enum(['running', 'succeeded', 'failed']).optional() }, { error: 'must be an object' });

/**
 * A {@link RunStore} on Redis: one stream per run, shared by every process that uses the same Redis and
 * prefix, on one server, a Sentinel group or a Redis Cluster.
 *
 * @remarks
 * A run's records are the entries of its journal stream (`<prefix>:runstore:run:{<runId>}:journal`, the
 * record of seq `n` being the entry `<n + 1>-0`), beside a summary hash (name, status, records,
 * createdAt, updatedAt) and its lease; the three keys share the hash tag of the run, so on a Cluster
 * they live in one slot. An index (a sorted set by createdAt) lists the runs for `list`.
 *
 * - `append` is one Lua script: it checks the lease (when given), adds every record and updates the
 *   summary. Redis runs a script alone and refuses one for lack of memory before its first write, and the
 *   script makes every check before it writes, so an append is all or none. A Redis that is away or
 *   answers an error rejects it with `RunStoreError`, retryable when the failure may pass (no connection,
 *   a server loading or out of memory). Each append carries an id of its own, so one that ioredis sent
 *   again after a lost reply is not added twice. An append whose reply was lost and that then rejected
 *   may have been applied (all of it): read the journal to know.
 * - `read` takes the journal in pages of `pageSize` entries (`XRANGE`), up to the record that was last
 *   when it started, and checks each entry (its id, then `RunEventSchema`) before yielding it: a
 *   malformed one is a {@link MalformedRunEntryError} naming the run and the entry.
 * - Leases: a run's lease is a hash (the holder's token, the lease's epoch, when it lapses, and the
 *   holder's host, pid and owner) that one script takes and bumps the epoch of, so no two leases of a
 *   run share an epoch. It is taken when no token holds it, when it lapsed, when it is held under the
 *   same `owner`, or when its holder is a process of this host that exited (asked here, then taken by
 *   a second script only if that process still holds it); an acquisition ioredis sent again after a
 *   lost reply gets its lease (its token is from `newRunId`). A compare-and-set script renews it, lapsed
 *   or not, while its token is the run's; a compare-and-`HDEL` one releases it, keeping its epoch. A
 *   lease lapses on the Redis server's clock, which is also the clock of `createdAt`, `updatedAt` and
 *   `expiresAt` (on a Cluster, the clock of the node serving the run); the lease key is kept as long as
 *   its run (it goes with the run's keys, under `retainFinishedMs` or `expire`), and the lease of a run
 *   that has no journal yet a day after it lapses.
 * - Retention: with `retainFinishedMs`, the root's `run-end` puts a TTL on the run's keys, in the same
 *   script; `expire` puts one on them; `delete` removes them.
 * - The index is another key (another slot on a Cluster), so it is written with commands of its own: a
 *   run is added before its first records, and its exact createdAt set after them. When the first of
 *   these fails, the append fails and nothing is written; when the run's script then fails, or the run
 *   later expires or is deleted, the index holds an id without a run, which `list` drops.
 *
 * How long an operation waits while Redis is away is the client's: its `maxRetriesPerRequest` (20 by
 * default), `retryStrategy`, `enableOfflineQueue` and `commandTimeout`.
 *
 * @example
 * ```ts
 * import { RedisRunStore } from '@rxagents/redis';
 * import { Redis } from 'ioredis';
 *
 * export function runStore(): RedisRunStore {
 *   return new RedisRunStore(new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'), { retainFinishedMs: 7 * 86_400_000 });
 * }
 * ```
 */
export class RedisRunStore implements RunStore {
  readonly #redis: RedisClient;
  readonly #config: Config;

  /**
   * @param redis - An ioredis `Redis` or `Cluster` client ({@link RedisClient}); the store uses it for every command and never closes it.
   * @param options - See {@link RedisRunStoreOptions}.
   */
  constructor(redis: RedisClient, options: RedisRunStoreOptions = {}) {
    checkClient(redis, 'RedisRunStore');
    this.#redis = redis;
    this.#config = parseConfig(RedisRunStoreOptionsSchema, options, 'RedisRunStore');
  }

  async append(runId: string, events: readonly RunEvent[], lease?: RunLease): Promise<void> {
    checkRunId(runId, 'append');
    const checked = checkEvents(events);
    const token = lease === undefined ? '' : checkRunId(lease?.token, 'append', 'lease.token');
    const keys = this.#keys(runId);
    if (checked.length === 0) {
      if (lease !== undefined && (await this.#command('append', runId, () => this.#redis.hget(keys.lease, 'token'))) !== token) throw new RunLeaseLostError(runId);
      return;
    }
    const first = checked[0] as RunEvent;
    const opens = first.type === 'run-start' && first.parentCallId === null;
    const index = runIndexKey(this.#config.prefix);
    const args = [newRunId(), token, opens ? '1' : '0', opens ? first.name : '', endStatusOf(checked), String(this.#config.retainFinishedMs ?? ''), ...checked.map((event) => JSON.stringify(event))];
    const reply = await this.#command('append', runId, async () => {
      // Listed before its first record is written, so a run that exists is never missing from the index.
      if (opens) await this.#redis.zadd(index, 'NX', 0, runId);
      return scripts.appendRecords.run(this.#redis, [keys.journal, keys.summary, keys.lease], args);
    });
    const result = replyAs(AppendReplySchema, reply, 'append', runId);
    switch (result[0]) {
      case 'lease-lost':
        throw new RunLeaseLostError(runId);
      case 'not-started':
        throw new ConfigError('RedisRunStore.append', [{ path: 'events[0]', rule: "must be the root node's run-start (parentCallId null) in a new journal", received: first.type }]);
      case 'damaged':
        throw new MalformedRunEntryError('append', runId, result[1], "the journal stream does not end with the run's last record (someone else wrote to it)");
      case 'ok':
        // The records are in: a failure to set the exact score is not the append's (list orders by the summaries).
        if (opens) await this.#redis.zadd(index, result[1], runId).catch(() => undefined);
    }
  }

  async *read(runId: string, fromSeq = 0): AsyncIterable<RunRecord> {
    checkRunId(runId, 'read');
    let seq = checkSeq(fromSeq);
    const keys = this.#keys(runId);
    const { pageSize } = this.#config;
    // The record count and the first page in one transaction: both as of one moment.
    const replies = await this.#command('read', runId, () => this.#redis.multi().hget(keys.summary, 'records').xrange(keys.journal, entryIdOf(seq), '+', 'COUNT', pageSize).exec());
    if (replies === null) throw new RunStoreError('read', runId, new Error('Redis discarded the transaction'), true);
    const [counted, firstPage] = replies.map(([error, value]) => {
      if (error !== null) throw runStoreFailure('read', runId, error);
      return value;
    });
    if (counted === null || counted === undefined) return;
    const end = Number(counted);
    let page: unknown = firstPage;
    while (seq < end) {
      const records = journalRecords(runId, seq, Array.isArray(page) ? page.slice(0, end - seq) : page);
      if (records.length === 0) {
        const missing = `its journal stream has no record of seq ${seq} although the run holds ${end} records: the run was deleted or expired while it was read, or someone else changed the stream`;
        throw new RunStoreError('read', runId, new Error(missing));
      }
      for (const record of records) yield record;
      seq += records.length;
      if (seq < end) page = await this.#command('read', runId, () => this.#redis.xrange(keys.journal, entryIdOf(seq), entryIdOf(end - 1), 'COUNT', pageSize));
    }
  }

  async summary(runId: string): Promise<RunSummary | undefined> {
    checkRunId(runId, 'summary');
    const fields = await this.#command('summary', runId, () => this.#redis.hmget(this.#keys(runId).summary, ...SUMMARY_FIELDS));
    return summaryOf(runId, fields, 'summary');
  }

  async list(options: RunListOptions = {}): Promise<readonly RunSummary[]> {
    const { status } = parseConfig(RunListOptionsSchema, options, 'RedisRunStore.list');
    const index = runIndexKey(this.#config.prefix);
    const runIds = await this.#command('list', undefined, () => this.#redis.zrange(index, '0', '-1'));
    const summaries: RunSummary[] = [];
    const gone: string[] = [];
    for (let start = 0; start < runIds.length; start += this.#config.pageSize) {
      const ids = runIds.slice(start, start + this.#config.pageSize);
      // One command per run: on a Cluster their keys live in different slots.
      const pages = await this.#command('list', undefined, () => Promise.all(ids.map((runId) => this.#redis.hmget(this.#keys(runId).summary, ...SUMMARY_FIELDS))));
      pages.forEach((fields, at) => {
        const runId = ids[at] as string;
        const summary = summaryOf(runId, fields, 'list');
        if (summary === undefined) gone.push(runId);
        else if (status === undefined || summary.status === status) summaries.push(summary);
      });
    }
    if (gone.length > 0) await this.#command('list', undefined, () => this.#redis.zrem(index, ...gone));
    return summaries.sort((a, b) => a.createdAt - b.createdAt);
  }

  async acquireLease(runId: string, ttlMs: number, options: RunLeaseOptions = {}): Promise<RunLease> {
    checkRunId(runId, 'acquireLease');
    const ttl = ttlArgument(ttlMs, 'acquireLease');
    const { owner = '' } = parseConfig(RunLeaseOptionsSchema, options, 'RedisRunStore.acquireLease options');
    const token = newRunId();
    const keys = this.#keys(runId);
    const acquire = (exited: readonly [string, string] | readonly []) =>
      this.#command('acquireLease', runId, () => scripts.acquireLease.run(this.#redis, [keys.lease, keys.summary], [token, ttl, HOST, String(process.pid), owner, ...(exited.length === 0 ? ['', ''] : exited)]));
    let result = replyAs(AcquireReplySchema, await acquire([]), 'acquireLease', runId);
    // Whether a holder's process exited can be asked only here, on its host: then the script takes the lease if that process still holds it.
    if (result[0] === 0 && processIsGone(result[3], Number(result[4]))) result = replyAs(AcquireReplySchema, await acquire([result[3], result[4]]), 'acquireLease', runId);
    if (result[0] === 0) {
      const [, now, expiresAt, host, pid, heldOwner] = result;
      const holder: RunLeaseHolder = { ...(host === '' ? {} : { host }), ...(/^\d+$/.test(pid) ? { pid: Number(pid) } : {}), ...(heldOwner === '' ? {} : { owner: heldOwner }) };
      throw new RunLeasedError(runId, expiresAt === '' ? Infinity : Number(expiresAt), { now, holder });
    }
    return { runId, token, epoch: result[2], expiresAt: ttl === '' ? Infinity : result[1] + Number(ttl) };
  }

  async renewLease(lease: RunLease, ttlMs: number): Promise<RunLease> {
    const ttl = ttlArgument(ttlMs, 'renewLease');
    const runId = checkRunId(lease?.runId, 'renewLease', 'lease.runId');
    const token = checkRunId(lease?.token, 'renewLease', 'lease.token');
    const reply = await this.#command('renewLease', runId, () => scripts.renewLease.run(this.#redis, [this.#keys(runId).lease, this.#keys(runId).summary], [token, ttl]));
    const result = replyAs(RenewReplySchema, reply, 'renewLease', runId);
    if (result[0] === 0) throw new RunLeaseLostError(runId);
    return { runId, token, epoch: result[2], expiresAt: ttl === '' ? Infinity : result[1] + Number(ttl) };
  }

  async releaseLease(lease: RunLease): Promise<void> {
    const runId = checkRunId(lease?.runId, 'releaseLease', 'lease.runId');
    const token = checkRunId(lease?.token, 'releaseLease', 'lease.token');
    await this.#command('releaseLease', runId, () => scripts.releaseLease.run(this.#redis, [this.#keys(runId).lease], [token]));
  }

  async expire(runId: string, afterMs: number): Promise<void> {
    checkRunId(runId, 'expire');
    const delay = delayArgument(afterMs, 'expire');
    const keys = this.#keys(runId);
    await this.#command('expire', runId, () => scripts.expireRun.run(this.#redis, [keys.journal, keys.summary, keys.lease], [delay]));
  }

  async delete(runId: string): Promise<void> {
    checkRunId(runId, 'delete');
    const keys = this.#keys(runId);
    await this.#command('delete', runId, async () => {
      await this.#redis.del(keys.journal, keys.summary, keys.lease);
      // After the run's keys: should this fail, list drops the id of a run that is gone.
      await this.#redis.zrem(runIndexKey(this.#config.prefix), runId);
    });
  }

  #keys(runId: string): RunStoreKeys {
    return runStoreKeys(this.#config.prefix, runId);
  }

  /** Runs Redis commands; their failure as a `RunStoreError` (see {@link runStoreFailure}). */
  async #command<T>(operation: string, runId: string | undefined, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      throw runStoreFailure(operation, runId, error);
    }
  }
}
