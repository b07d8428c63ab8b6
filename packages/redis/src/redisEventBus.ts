import { hostname } from 'node:os';
import { choreographyEventIssue, type ChoreographyCoordinator, type ChoreographyEvent, type CoordinatedEntry, type EventBus, type StepResult } from '@rxagents/choreography';
import { ConfigError, configRules, delayTimer, newRunId, parseConfig, serializeError } from '@rxagents/core';

import { checkClient } from './internal/checkClient';
import { closeClient } from './internal/closeClient';
import { OutageReports } from './internal/OutageReports';
import { processWarning } from './internal/processWarning';
import { duplicateClient } from './internal/duplicateClient';
import type { RedisClient } from './types/RedisClient';
import { asyncScheduler, defer, filter, lastValueFrom, map, type Observable, Subject, type Subscription } from 'rxjs';
import { z } from 'zod';
import { RemoteAgentError } from './errors/RemoteAgentError';
import { RunClaims, takeClaim } from './internal/RunClaims';
import { type RunKeys, runKeys } from './internal/runKeys';
import { fieldOf, parseField, StreamReadSchema } from './internal/protocol';
import { RUN_PROTOCOL_VERSION, type RunEntry, RunEntrySchema, type WireStep } from './internal/runProtocol';

/** How long one blocking read of the run's stream waits before it asks again, in ms. */
const READ_BLOCK_MS = 2_000;
/** How many entries one read takes at most. */
const READ_COUNT = 1_000;
/**
 * The start of the append name of the run's initial event at each index: the same in every bus, so an
 * engine that takes the start over from one that died after storing some of them adds no event twice.
 */
const INITIAL_APPEND = 'initial:';

/**
 * The options of {@link redisEventBus}, checked by this schema (bad values fail with a `ConfigError`
 * naming the field).
 *
 * @example
 * ```ts
 * import { RedisEventBusOptionsSchema } from '@rxagents/redis';
 *
 * console.log(RedisEventBusOptionsSchema.parse({ runId: 'run-1' }).concurrency); // 8
 * console.log(RedisEventBusOptionsSchema.safeParse({ runId: 'a{b}' }).success); // false
 * ```
 */
export const RedisEventBusOptionsSchema = z
  .strictObject({
    /** The run every engine of it shares: the same on each process. Defaults to a new unguessable id (`newRunId()`), which `bus.runId` gives to hand to the others. */
    runId: configRules
      .nonEmptyString()
      .refine((id) => !/[{}]/.test(id), 'must not contain { or } (it becomes the hash tag of the run’s keys)')
      .optional(),
    /** The prefix of every Redis key; the same on every process. */
    prefix: configRules.nonEmptyString().default('rxagents'),
    /** How many interactions this process runs at once (claims it holds). */
    concurrency: configRules.positiveInt(10_000).default(8),
    /** A claim not renewed for this long (its process died or froze) is taken over by another process, in ms; renewed every third of it. */
    claimLeaseMs: configRules.positiveInt(86_400_000).min(30, 'must be at least 30').default(10_000),
    /** The approximate bound (`MAXLEN ~`) of the run's stream, in entries. */
    maxLen: configRules.positiveInt().default(100_000),
    /** How long the run's keys outlive their last write, in ms. */
    ttlMs: configRules.positiveInt(86_400_000 * 30).default(86_400_000),
    /** The approximate bound (`MAXLEN ~`) of the run's dead-letter stream, in entries. */
    deadLetterMaxLen: configRules.positiveInt().default(10_000),
    /** This process's name in claims and entries; unique per bus by default. Two buses running at once must not share one: a claim taken by `owner` counts as taken by either. */
    owner: configRules.nonEmptyString().optional(),
    /** The clock of the claim renewals. */
    scheduler: configRules.scheduler().default(asyncScheduler),
    /**
     * Receives Redis failures and malformed entries the bus survives: of an outage (the client not connected),
     * only the first failure. Defaults to a process warning (`process.emitWarning`, code
     * `RXAGENTS_REDIS_EVENT_BUS`), and then one more when Redis is reachable again.
     */
    onError: configRules.function<(error: unknown) => void>().optional(),
  });

/**
 * The options of {@link redisEventBus}; every field is optional.
 *
 * @example
 * ```ts
 * import { newRunId } from '@rxagents/core';
 * import type { RedisEventBusOptions } from '@rxagents/redis';
 *
 * const options: RedisEventBusOptions = { runId: newRunId(), concurrency: 4, claimLeaseMs: 5_000 };
 * ```
 */
export type RedisEventBusOptions = z.input<typeof RedisEventBusOptionsSchema>;

/**
 * A choreography {@link EventBus} on a Redis stream, shared by engines in several processes, as
 * {@link redisEventBus} returns it.
 *
 * @example
 * ```ts
 * import type { RedisEventBus } from '@rxagents/redis';
 *
 * export function describeBus(bus: RedisEventBus): string {
 *   return `run ${bus.runId} as ${bus.owner}`;
 * }
 * ```
 */
export interface RedisEventBus extends EventBus {
  /** The run's id: pass it to the other processes of the run. */
  readonly runId: string;
  /** This process's name in claims and entries. */
  readonly owner: string;
  /** Makes the bus shared: each interaction runs once per run across every engine on it. */
  readonly coordinator: ChoreographyCoordinator;
}

/**
 * An {@link EventBus} for a choreography run shared by engines in several processes, on one Redis stream.
 *
 * @remarks
 * Each process builds a {@link ChoreographyEngine} for the same spec with the agents it hosts (the others
 * declared with `remoteAgent(id)`) on a `redisEventBus` with the same `runId`. Several processes may host
 * the same agent id: that shares its interactions among them. Every interaction runs once per run: the
 * engines claim it (`SET NX GET PX claimLeaseMs`, renewed while the agent runs, at most `concurrency` per
 * process), and if the process running it dies, another takes it over once the claim's lease runs out and
 * runs it again. Its step is one stream entry (with the event it emits), which every engine records, so
 * every process ends with the same steps and the same result. See `docs/redis.md`.
 *
 * The bus reads the run's stream from its first entry (blocking `XREAD`) once subscribed: a process that
 * joins late still sees the whole run. Entries are checked with a zod schema; a malformed one goes to the
 * run's dead-letter stream (once, whichever process finds it) and is skipped. A failed step arrives as a
 * `RemoteAgentError` holding the original error's name, message and code. `close()` (the engine calls it
 * when its run ends) stops reading and gives up the claims whose step is not recorded.
 *
 * A Redis restart (AOF on) or a broken connection loses nothing: a claim or an entry that ioredis sends
 * again after it reconnects counts once (a resent claim finds its own owner; each entry names its write
 * in the field `append`), and a write that fails past the client's retries is reported to `onError` and
 * tried again every second until it is stored or the bus closes.
 *
 * @param redis - An ioredis `Redis` or `Cluster` client ({@link RedisClient}) for writes; one duplicate of it does the blocking reads.
 * @param options - See {@link RedisEventBusOptions}.
 *
 * @example
 * ```ts
 * // no-run: needs a running Redis server and the other processes of the run
 * import { ChoreographyEngine, ChoreographySpec } from '@rxagents/choreography';
 * import { defineAgent } from '@rxagents/core';
 * import { redisEventBus } from '@rxagents/redis';
 * import { Redis } from 'ioredis';
 *
 * const spec = ChoreographySpec.builder('article')
 *   .initialEvent('start')
 *   .interaction('research', 'user', 'researcher', 'start', 'researched', 'Collect sources')
 *   .interaction('draft', 'researcher', 'writer', 'researched', null, 'Write a draft')
 *   .build();
 * // This process hosts the writer; another one, on the same runId, hosts the researcher.
 * const bus = redisEventBus(new Redis(), { runId: process.env.RUN_ID });
 * const engine = ChoreographyEngine.builder()
 *   .spec(spec)
 *   .agent('writer', defineAgent('writer', async (input) => `draft from ${input}`))
 *   .remoteAgent('researcher')
 *   .bus(bus)
 *   .build();
 * console.log((await engine.execute({ input: 'agent coordination' })).stepResults.length); // 2, in every process
 * ```
 */
export function redisEventBus(redis: RedisClient, options: RedisEventBusOptions = {}): RedisEventBus {
  checkClient(redis, 'redisEventBus');
  const config = parseConfig(RedisEventBusOptionsSchema, options, 'redisEventBus');
  return new RedisRunBus(redis, config);
}

type Config = z.output<typeof RedisEventBusOptionsSchema>;

class RedisRunBus implements RedisEventBus, ChoreographyCoordinator {
  readonly runId: string;
  readonly owner: string;
  readonly coordinator: ChoreographyCoordinator = this;
  readonly entries$: Observable<CoordinatedEntry>;
  readonly events$: Observable<ChoreographyEvent>;
  readonly #redis: RedisClient;
  readonly #config: Config;
  readonly #keys: RunKeys;
  readonly #claims: RunClaims;
  readonly #entries = new Subject<CoordinatedEntry>();
  readonly #stepped = new Set<string>();
  readonly #report: (error: unknown) => void;
  /** The appends read (field `append`): one ioredis sent again after a reconnect, that Redis had stored, is read once. */
  readonly #appended = new Set<string>();
  /**
   * Names this bus's appends with `owner`: unique to the bus even when `owner` is not (a process that
   * restarted under its old name would otherwise name its appends as its earlier life did, and be read as resends).
   */
  readonly #appendPrefix: string;
  #appends = 0;
  /** The append names of the initial events not read yet, once `start` was called. */
  #initialUnread: Set<string> | undefined = undefined;
  /** The claim of the run's start, held or asked for until the initial events are read. */
  #starting: Subscription | undefined = undefined;
  #reader: RedisClient | undefined = undefined;
  #closed = false;
  readonly #outages: OutageReports;

  constructor(redis: RedisClient, config: Config) {
    this.#redis = redis;
    this.#config = config;
    this.runId = config.runId ?? newRunId();
    this.owner = config.owner ?? `${hostname()}-${process.pid}-${crypto.randomUUID().slice(0, 8)}`;
    this.#appendPrefix = `${this.owner}:${crypto.randomUUID()}`;
    this.#keys = runKeys(config.prefix, this.runId);
    const warn = processWarning('RXAGENTS_REDIS_EVENT_BUS');
    // The default warning says when Redis is back, too; an onError of yours gets the failures only.
    this.#outages = new OutageReports(redis, config.onError ?? warn, config.onError === undefined ? () => warn(`event bus of run ${this.runId}: Redis is reachable again`) : undefined);
    this.#report = (error) => {
      if (!this.#closed) this.#outages.report(error);
    };
    this.#claims = new RunClaims({ redis, owner: this.owner, concurrency: config.concurrency, leaseMs: config.claimLeaseMs, ttlMs: config.ttlMs, scheduler: config.scheduler, report: this.#report });
    // Reading starts with the first subscriber; a later one gets the entries from there on.
    let reading = false;
    const entries = this.#entries.asObservable();
    this.entries$ = defer(() => {
      if (!reading && !this.#closed) {
        reading = true;
        this.#readLoop().catch(this.#report);
      }
      return entries;
    });
    this.events$ = this.entries$.pipe(
      filter((entry) => entry.kind !== 'timed-out'),
      map((entry) => (entry.kind === 'event' ? entry.event : entry.emitted)),
      filter((event): event is ChoreographyEvent => event !== undefined),
    );
  }

  publish(event: ChoreographyEvent): void {
    const malformed = choreographyEventIssue(event);
    if (malformed !== undefined) throw new ConfigError('redisEventBus.publish event', [malformed]);
    if (this.#closed) return;
    this.#append({ v: RUN_PROTOCOL_VERSION, kind: 'event', by: this.owner, event: wireEvent(event) }).catch(this.#report);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#outages.close();
    this.#claims.close();
    if (this.#reader !== undefined) closeClient(this.#reader);
    this.#entries.complete();
  }

  /**
   * The start is a claim like an interaction's: the engine holding it appends the initial events, then
   * marks it `done`. If that engine dies first its lease runs out and another takes the start over; the
   * initial events carry the same append names whoever appends them, so each is read once.
   */
  start(events: readonly ChoreographyEvent[]): void {
    if (this.#closed || this.#starting !== undefined || events.length === 0) return;
    const names = events.map((_, index) => `${INITIAL_APPEND}${index}`);
    this.#initialUnread = new Set(names.filter((name) => !this.#appended.has(name)));
    if (this.#initialUnread.size === 0) return;
    const key = this.#keys.started;
    let publishing = false;
    this.#starting = this.#claims.claim(key).subscribe((held) => {
      if (!held || publishing) return;
      publishing = true;
      this.#claims.recording(key);
      this.#appendInitial(events, names)
        .then((stored) => stored && this.#claims.done(key))
        .catch(this.#report);
    });
  }

  claim(eventId: string, interactionId: string): Observable<boolean> {
    return this.#claims.claim(this.#keys.claim(eventId, interactionId));
  }

  recordStep(eventId: string, step: StepResult, emitted: ChoreographyEvent | null): void {
    if (this.#closed) return;
    const wire: WireStep = step.success
      ? { interactionId: step.interactionId, agentId: step.agentId, input: step.input, startedAt: step.startedAt, durationMs: step.durationMs, success: true, output: step.output }
      : { interactionId: step.interactionId, agentId: step.agentId, input: step.input, startedAt: step.startedAt, durationMs: step.durationMs, success: false, error: serializeError(step.error) };
    // The claim becomes `done` once the step is stored: until then it stays held (and renewed) here.
    this.#claims.recording(this.#keys.claim(eventId, step.interactionId));
    this.#append({ v: RUN_PROTOCOL_VERSION, kind: 'step', by: this.owner, eventId, step: wire, ...(emitted === null ? {} : { emitted: wireEvent(emitted) }) })
      .then((stored) => stored && this.#claims.done(this.#keys.claim(eventId, step.interactionId)))
      .catch(this.#report);
  }

  timeOut(): void {
    if (this.#closed) return;
    this.#append({ v: RUN_PROTOCOL_VERSION, kind: 'timed-out', by: this.owner }).catch(this.#report);
  }

  /** Appends the initial events one after the other, named by their index; true once all are stored. */
  async #appendInitial(events: readonly ChoreographyEvent[], names: readonly string[]): Promise<boolean> {
    for (const [index, event] of events.entries()) {
      const stored = await this.#append({ v: RUN_PROTOCOL_VERSION, kind: 'event', by: this.owner, event: wireEvent(event) }, names[index]);
      if (!stored) return false;
    }
    return true;
  }

  /**
   * Appends `entry` to the run's stream; true once it is stored, false if the bus closed first. Each
   * append is named (field `append`, `append` if given, else a name of this bus's own): one stored twice
   * (ioredis sent it again after a reconnect, or a later try did after a lost reply) is read once.
   */
  async #append(entry: RunEntry, append = `${this.#appendPrefix}:${this.#appends++}`): Promise<boolean> {
    const { events } = this.#keys;
    const { maxLen, ttlMs } = this.#config;
    const json = JSON.stringify(entry);
    const stored = await this.#persist(async () => {
      const replies = await this.#redis.multi().xadd(events, 'MAXLEN', '~', maxLen, '*', 'entry', json, 'append', append).pexpire(events, ttlMs).exec();
      const failed = replies?.find(([error]) => error !== null)?.[0];
      if (failed !== undefined) throw failed;
      return true;
    });
    return stored === true;
  }

  /**
   * Runs `write` until it succeeds or the bus closes (then undefined), reporting each failure and
   * pausing between tries: a Redis down for longer than ioredis queues a command
   * (`maxRetriesPerRequest`) delays a write, it does not lose it.
   */
  async #persist<T>(write: () => Promise<T>): Promise<T | undefined> {
    for (;;) {
      try {
        return await write();
      } catch (error) {
        if (this.#closed) return undefined;
        this.#report(error);
        await this.#pause();
      }
    }
  }

  /** Waits a second (at most `claimLeaseMs`) on the bus's scheduler: the pause before a failed write or read is tried again. */
  async #pause(): Promise<void> {
    await lastValueFrom(delayTimer(Math.min(1_000, this.#config.claimLeaseMs), this.#config.scheduler));
  }

  async #readLoop(): Promise<void> {
    const reader = duplicateClient(this.#redis);
    this.#reader = reader;
    if (this.#closed) closeClient(reader);
    let lastId = '0-0';
    while (!this.#closed) {
      let raw: unknown;
      try {
        raw = await reader.call('XREAD', 'COUNT', READ_COUNT, 'BLOCK', READ_BLOCK_MS, 'STREAMS', this.#keys.events, lastId);
      } catch (error) {
        if (this.#closed) return;
        this.#report(error);
        await this.#pause();
        continue;
      }
      if (this.#closed) return;
      const read = StreamReadSchema.safeParse(raw);
      if (!read.success) {
        // The same read would get the same reply at once: asking again without a pause would spin.
        this.#report(new Error(`unexpected XREAD reply: ${z.prettifyError(read.error)}`));
        await this.#pause();
        continue;
      }
      for (const [entryId, fields] of read.data) {
        lastId = entryId;
        if (this.#closed) return;
        this.#deliver(entryId, fields);
      }
    }
  }

  #deliver(entryId: string, fields: readonly string[] | null): void {
    // Checked first: a malformed entry that carries an append name must not make the real entry of that
    // name (an initial event, say) look like a resend, or the run would wait for it until its timeout.
    const parsed = parseField(RunEntrySchema, fieldOf(fields, 'entry'), 'entry');
    if (!parsed.ok) {
      this.#deadLetter(entryId, fields, parsed.reason).catch(this.#report);
      return;
    }
    const append = fieldOf(fields, 'append');
    if (append !== undefined) {
      if (this.#appended.has(append)) return;
      this.#appended.add(append);
      // Every initial event is read: the run has started, so the start's claim is no longer asked for.
      if (this.#initialUnread?.delete(append) === true && this.#initialUnread.size === 0) this.#starting?.unsubscribe();
    }
    const entry = parsed.value;
    if (entry.kind === 'event') this.#entries.next({ kind: 'event', id: entryId, event: entry.event });
    else if (entry.kind === 'timed-out') this.#entries.next({ kind: 'timed-out', id: entryId });
    else {
      // The first step of an interaction is its step: a later one (its first runner froze past its lease) is not delivered.
      if (this.#stepped.has(entry.step.interactionId)) return;
      this.#stepped.add(entry.step.interactionId);
      const step: StepResult = entry.step.success ? entry.step : { ...entry.step, error: new RemoteAgentError(entry.step.agentId, entry.step.error) };
      this.#entries.next(entry.emitted === undefined ? { kind: 'step', id: entryId, step } : { kind: 'step', id: entryId, step, emitted: entry.emitted });
    }
  }

  /** Writes a malformed entry to the dead-letter stream, once for the run whichever process reads it first. */
  async #deadLetter(entryId: string, fields: readonly string[] | null, reason: string): Promise<void> {
    const { ttlMs, deadLetterMaxLen } = this.#config;
    this.#report(new Error(`redisEventBus: malformed entry ${entryId} in run ${this.runId}: ${reason}`));
    if (!(await takeClaim(this.#redis, this.#keys.deadLettered(entryId), this.owner, ttlMs))) return;
    await this.#redis.xadd(this.#keys.deadLetter, 'MAXLEN', '~', deadLetterMaxLen, '*', 'reason', reason, 'entryId', entryId, 'owner', this.owner, 'fields', JSON.stringify(fields ?? []));
    await this.#redis.pexpire(this.#keys.deadLetter, ttlMs);
  }
}

/** The fields of an event the wire carries, whatever else the object has. */
function wireEvent({ name, output, input, interactionId, agentId }: ChoreographyEvent): ChoreographyEvent {
  return { name, output, input, interactionId, agentId };
}
