import { defer, finalize, map, Observable, tap } from 'rxjs';
import { configRules, type RunContext } from '@rxagents/core';
import { BackpressureStrategy, BackpressureStrategySchema, StreamingChannel, StreamingChannelOptionsSchema } from '@rxagents/streaming';
import { z } from 'zod';
import type { AgentResult } from '../execution/AgentResult';
import { type BarrierStrategy, type ChannelExecutionStrategy, CollectOptionsSchema, type ConversationStrategy, ConversationStrategySchema, type FanInStrategy } from './ChannelExecutionStrategy';
import type { PostedMessage } from '../conversation/ConversationState';
import type { ExecutionBackend } from '../execution/ExecutionModel';
import type { ExecutionModel } from '../execution/ExecutionModel';
import type { ExecutionResult } from '../execution/ExecutionResult';
import { runCollectStrategy } from './runCollectStrategy';
import { runConversationStrategy } from './runConversationStrategy';
import { parseOnce } from '../builders/validated';
import { emitMetrics } from '../execution/patternEvents';

/**
 * A pattern run's channel: conversation messages (Conversation), or agent results (FanIn, Barrier).
 *
 * @remarks
 * For code that handles the channel of any pattern (a logger, say). A builder's `onChannel` receives
 * the exact type: `StreamingChannel<PostedMessage>` for a debate, a sequence and a supervisor,
 * `StreamingChannel<AgentResult>` for a vote and parallel work.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns, type PatternChannel } from '@rxagents/patterns';
 *
 * // A logger for any pattern's channel: it prints each item as it is posted.
 * const logChannel = (channel: PatternChannel): void => {
 *   channel.subscribe((item: unknown) => console.log(`[${channel.id}]`, item));
 * };
 * const voters = [defineAgent('a', async () => 'yes'), defineAgent('b', async () => 'yes')];
 * await Patterns.voting({ agents: voters }).overChannel({ id: 'vote-42', onChannel: logChannel }).execute('Ship?');
 * ```
 */
export type PatternChannel = StreamingChannel<PostedMessage> | StreamingChannel<AgentResult>;

/**
 * Options of {@link ChannelBackend}: the channel each run creates; `M` is the type of what the run posts.
 *
 * @remarks
 * Every pattern's `.overChannel(options)` takes them; each run opens its own channel with them, so
 * `onChannel` is called once per run. `M` follows from the strategy: a Conversation (a debate, a
 * sequence, a supervisor) posts {@link PostedMessage}s, FanIn and Barrier (a vote, parallel work) post
 * {@link AgentResult}s, so a watcher's items are typed without an annotation.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns, type ChannelBackendOptions, type PostedMessage } from '@rxagents/patterns';
 *
 * const options: ChannelBackendOptions<PostedMessage> = {
 *   id: 'release-debate',
 *   bufferSize: 64,
 *   onChannel: (channel) => channel.subscribe((message) => console.log(`${message.speaker}: ${message.content}`)),
 * };
 * const debaters = [defineAgent('pro', async () => 'Ship.'), defineAgent('con', async () => 'Wait.')];
 * await Patterns.debate({ agents: debaters, maxRounds: 1 }).overChannel(options).execute('Release today?'); // pro: Ship. then con: Wait.
 * ```
 */
export interface ChannelBackendOptions<M> {
  /** The channel's id. Default: a random 8-character id (the channel's own default); in a durable run, `<runId>:<place of the pattern's node>`, the same on every resume. */
  readonly id?: string;
  /** The channel's buffer. Default 256. */
  readonly bufferSize?: number;
  /** The channel's strategy. Default `BLOCK`: a slow watcher slows the run; a message dropped anyway fails it (`MessageDroppedError`). */
  readonly backpressure?: BackpressureStrategy;
  /**
   * Called with each run's channel before anything is posted: subscribe a UI or a logger here. A
   * subscriber whose handler throws or rejects fails the run with that error.
   */
  readonly onChannel?: (channel: StreamingChannel<M>) => void;
}

/**
 * The zod schema of {@link ChannelBackendOptions}.
 *
 * @remarks
 * Strict: an unknown key is an error.
 *
 * @example
 * ```ts
 * import { parseConfig } from '@rxagents/core';
 * import { ChannelBackendOptionsSchema } from '@rxagents/patterns';
 *
 * // Channel settings from a JSON file; `backpressure` is checked against the streaming strategies.
 * const settings = parseConfig(ChannelBackendOptionsSchema, JSON.parse('{ "bufferSize": 32, "backpressure": "BLOCK" }'), 'Channel options');
 * console.log(settings.bufferSize, settings.backpressure); // 32 BLOCK
 * console.log(ChannelBackendOptionsSchema.safeParse({ bufferSize: -1 }).success); // false
 * ```
 */
export const ChannelBackendOptionsSchema = z.strictObject({
  id: configRules.id().optional(),
  // The channel's own rule, so the bound is the one the channel can honour.
  bufferSize: StreamingChannelOptionsSchema.shape.bufferSize.unwrap().optional(),
  backpressure: BackpressureStrategySchema.optional(),
  onChannel: configRules.function<(channel: never) => void>().optional(),
});

/**
 * The default channel id in a durable run: the run's id and the pattern node's place, the same on every
 * resume, so the `metrics` events a resumed run adds name the channel its journal already names. Elsewhere
 * `undefined`: the channel's own random id.
 */
function durableChannelId(run: RunContext | undefined): string | undefined {
  if (run?.journal === undefined || run.callId === null) return undefined;
  return `${run.runId}:${run.callId.replace(/#\d+/g, '')}`;
}

/**
 * A backend made by {@link ChannelBackend}; it says which strategy it runs.
 *
 * @example
 * ```ts
 * import { ChannelBackend, ChannelExecutionStrategy, type ChannelExecutionBackend, type VotingState } from '@rxagents/patterns';
 *
 * const backend: ChannelExecutionBackend<VotingState> = ChannelBackend(ChannelExecutionStrategy.fanIn({ concurrency: 4 }));
 * console.log(backend.strategy.kind); // fanIn
 * ```
 */
export type ChannelExecutionBackend<T> = ExecutionBackend<T> & { readonly strategy: ChannelExecutionStrategy<T> };

/**
 * A backend that runs each pattern run over its own `StreamingChannel`, with the given strategy.
 *
 * @remarks
 * Per run (per subscription): creates the channel on the model's scheduler, hands it to the strategy
 * (Conversation, FanIn or Barrier), and tears it down in a finalizer: `complete()` when the run
 * completes (watchers drain what they have not read yet), `close()` on error and on unsubscription
 * (a cancelled run delivers nothing more). Results report `mode: 'channel'`. A message the channel
 * drops (a slow watcher behind a `DROP_*` strategy, or past `offerTimeout` under `BLOCK`) ends the run
 * as `failed` with {@link MessageDroppedError}, never a hang. In a watched run (the backend's `run`)
 * the strategy reports calls, messages, rounds and the termination, and the run's channel a `metrics`
 * sample (source: the channel's id) once, as the run ends. `.overChannel()` on a
 * pattern builder sets this backend with the strategy the pattern implies.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { ChannelBackend, ChannelExecutionStrategy, ExecutionModel, Patterns, runModel } from '@rxagents/patterns';
 *
 * const a = defineAgent('a', async () => 'approve');
 * const b = defineAgent('b', async () => 'approve');
 * const direct = Patterns.voting({ agents: [a, b] }).build();
 * const overChannel = ExecutionModel.withBackend(direct, ChannelBackend(ChannelExecutionStrategy.fanIn(), {
 *   onChannel: (channel) => channel.subscribe((item: unknown) => console.log('on the channel:', item)),
 * }));
 * runModel(overChannel, 'Ship?').subscribe((result) => console.log(result.mode, result.status));
 * ```
 */
export function ChannelBackend<T>(strategy: ConversationStrategy<T>, options?: ChannelBackendOptions<PostedMessage>): ChannelExecutionBackend<T>;
export function ChannelBackend<T>(strategy: FanInStrategy | BarrierStrategy, options?: ChannelBackendOptions<AgentResult>): ChannelExecutionBackend<T>;
/** For a strategy whose kind is not known statically, `onChannel` takes either channel (see {@link PatternChannel}). */
export function ChannelBackend<T>(
  strategy: ChannelExecutionStrategy<T>,
  options?: ChannelBackendOptions<PostedMessage> & ChannelBackendOptions<AgentResult>,
): ChannelExecutionBackend<T>;
export function ChannelBackend<T>(
  strategy: ChannelExecutionStrategy<T>,
  options: ChannelBackendOptions<PostedMessage> | ChannelBackendOptions<AgentResult> = {},
): ChannelExecutionBackend<T> {
  return channelBackend(strategySettings(strategy), channelSettings(options, 'ChannelBackend options'));
}

const ConversationStrategyRule = ConversationStrategySchema.extend({ kind: z.literal('conversation') });
const CollectStrategyRule = CollectOptionsSchema.extend({ kind: z.enum(['fanIn', 'barrier'], { error: 'must be conversation, fanIn or barrier' }) });

/** A strategy made by hand rather than by `ChannelExecutionStrategy`'s factories is checked here, once. */
function strategySettings<T>(strategy: ChannelExecutionStrategy<T>): ChannelExecutionStrategy<T> {
  const rule = (strategy as { kind?: unknown } | undefined)?.kind === 'conversation' ? ConversationStrategyRule : CollectStrategyRule;
  return parseOnce(rule, strategy, 'ChannelBackend strategy', () => strategy);
}

/** Validates channel options where the user gives them (`ChannelBackend`, a builder's `.overChannel()`). @throws `ConfigError`. */
export function channelSettings<O extends ChannelBackendOptions<PostedMessage> | ChannelBackendOptions<AgentResult>>(options: O, label: string): O {
  return parseOnce(ChannelBackendOptionsSchema, options, label, (parsed) => ({ ...parsed, ...(options.onChannel === undefined ? {} : { onChannel: options.onChannel }) }) as O);
}

/** {@link ChannelBackend} for settings validated already (see {@link channelSettings}): nothing is parsed again. */
export function channelBackend<T>(strategy: ChannelExecutionStrategy<T>, settings: ChannelBackendOptions<PostedMessage> | ChannelBackendOptions<AgentResult>): ChannelExecutionBackend<T> {
  // The overloads of ChannelBackend pair a strategy with the watcher of what it posts.
  const onChannel = settings.onChannel as ((channel: PatternChannel) => void) | undefined;
  const open = <M>(model: ExecutionModel<T>, run: RunContext | undefined): StreamingChannel<M> => {
    const id = settings.id ?? durableChannelId(run);
    return StreamingChannel.create<M>({
      backpressure: settings.backpressure ?? BackpressureStrategy.BLOCK,
      scheduler: model.scheduler,
      ...(id === undefined ? {} : { id }),
      ...(settings.bufferSize === undefined ? {} : { bufferSize: settings.bufferSize }),
    });
  };
  const backend = (model: ExecutionModel<T>, input: string, run?: RunContext): Observable<ExecutionResult<T>> =>
    defer(() => {
      if (strategy.kind === 'conversation') {
        const channel = open<PostedMessage>(model, run);
        return tearDownAfter(channel, run, () => {
          onChannel?.(channel);
          const conversation = { emit: (message: PostedMessage) => channel.emit(message), offer$: posting(channel, run), asObservable: () => channel.asObservable() };
          return runConversationStrategy(strategy, model, input, conversation, run);
        });
      }
      const channel = open<AgentResult>(model, run);
      return tearDownAfter(channel, run, () => {
        onChannel?.(channel);
        return runCollectStrategy(strategy, model, input, { offer$: posting(channel, run), asObservable: () => channel.asObservable() }, run);
      });
    });
  return Object.assign(backend, { strategy });
}

/**
 * Posts on a run's channel with `offer$` (under `BLOCK` a post waits for room rather than parking
 * unseen) and reports `false` when anything was dropped meanwhile, an earlier item evicted by
 * `DROP_OLDEST` included: the run could never collect it. In a watched run, every settled post samples
 * the channel's metrics into the run, so a UI sees the buffer fill and the drops as the run goes.
 */
function posting<M>(channel: StreamingChannel<M>, run: RunContext | undefined): (item: M) => Observable<boolean> {
  return (item) =>
    defer(() => {
      const droppedBefore = channel.metrics().dropped;
      return channel.offer$(item).pipe(
        map((accepted) => {
          const metrics = channel.metrics();
          if (run !== undefined) emitMetrics(run, channel.id, metrics.toJSON());
          return accepted && metrics.dropped === droppedBefore;
        }),
      );
    });
}

/**
 * Runs what `start` sets up on `channel`, and tears the channel down however it ends, a failing `start`
 * included. A subscriber of the channel (a watcher attached in `onChannel`) that throws fails the run
 * with its error, rather than reaching unhandled-error reporting while the run goes on. In a watched
 * run, the channel's metrics are sampled into it once: with the final result, or as the run fails or
 * is cancelled (each post samples them too; see `posting`).
 */
function tearDownAfter<M, T>(channel: StreamingChannel<M>, run: RunContext | undefined, start: () => Observable<ExecutionResult<T>>): Observable<ExecutionResult<T>> {
  let completed = false;
  let sampled = false;
  const sample = (): void => {
    if (run === undefined || sampled) return;
    sampled = true;
    emitMetrics(run, channel.id, channel.metrics().toJSON());
  };
  const run$ = new Observable<ExecutionResult<T>>((subscriber) => {
    subscriber.add(channel.onError((error) => subscriber.error(error)));
    defer(start).subscribe(subscriber);
  });
  return run$.pipe(
    map((result): ExecutionResult<T> => {
      if (result.status !== 'running') sample();
      return result.mode === 'channel' ? result : { ...result, mode: 'channel' };
    }),
    tap({
      complete: () => {
        completed = true;
        channel.complete();
      },
    }),
    finalize(() => {
      if (!completed) channel.close();
      sample();
    }),
  );
}
