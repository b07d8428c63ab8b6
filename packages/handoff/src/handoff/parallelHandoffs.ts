import { asyncScheduler, catchError, defer, from, map, mergeMap, type Observable, of, reduce } from 'rxjs';
import { z } from 'zod';
import { ConfigError, configRules, lastValue, observeRun, parseConfig, traceResult, type Agent, type RunContext, type RunEvent, type RunEventsOptions, type RunOutcome } from '@rxagents/core';
import { currentHandoffChain } from '../guards/currentHandoffChain';
import { Handoff } from './Handoff';
import { failedCall } from '../internal/failedCall';
import { DistinctAgentIds, hasId, isAgent, splitEventsOptions, signedCountRule } from '../internal/rules';
import type { HandoffOutcome } from './HandoffOutcome';
import type { HandoffSource } from '../strategy/HandoffStrategy';
import type { Message } from '@rxagents/core';

/**
 * One task of {@link parallelHandoffs}: a target (an agent or a configured {@link Handoff}) and its prompt.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import type { ParallelHandoffTask } from '@rxagents/handoff';
 *
 * const task: ParallelHandoffTask = [defineAgent('billing', async () => 'paid'), 'Why was I charged twice?'];
 * ```
 */
export type ParallelHandoffTask = readonly [target: Agent | Handoff, prompt: string];

/**
 * Options of {@link parallelHandoffs}.
 *
 * @example
 * ```ts
 * import type { ParallelHandoffsOptions } from '@rxagents/handoff';
 *
 * const options: ParallelHandoffsOptions = { maxConcurrent: 0, messages: [{ role: 'user', content: 'context' }] };
 * ```
 */
export interface ParallelHandoffsOptions {
  /** How many targets run at once; `<= 0` is unlimited. Defaults to 5. */
  readonly maxConcurrent?: number;
  /** History shared with every target (each target's context policy selects from it). */
  readonly messages?: readonly Message[];
  /** Aborting it aborts every running target and rejects (Promise form only). */
  readonly signal?: AbortSignal;
  /**
   * The run to report into (from `observeRun`, a primitive's node, or an agent's `ChatOptions.run`): the
   * fan-out is then a `parallel-handoffs` node with each task's `handoff` node under it. For a run of its
   * own, use {@link parallelHandoffsEvents$}.
   */
  readonly run?: RunContext;
}

/**
 * The zod schema of {@link ParallelHandoffsOptions}.
 *
 * @example
 * ```ts
 * import { ParallelHandoffsOptionsSchema } from '@rxagents/handoff';
 *
 * console.log(ParallelHandoffsOptionsSchema.parse({}).maxConcurrent); // 5
 * ```
 */
export const ParallelHandoffsOptionsSchema = z.strictObject({
  maxConcurrent: signedCountRule().default(5),
  messages: z.array(z.custom<Message>((value) => typeof value === 'object' && value !== null)).readonly().optional(),
  signal: configRules.abortSignal().optional(),
  run: configRules.runContext().optional(),
});

/**
 * Fans a source agent's work out to several targets at once; emits every outcome, in input order.
 *
 * @remarks
 * Built on `mergeMap` with `maxConcurrent` as its concurrency. The handoff chain in scope is read once
 * and each sibling gets its own copy, so fan-out never reads the ambient value and no chain leaks between
 * siblings: cycle detection and `maxDepth` are enforced per task. A failure, including a guard's error,
 * is an outcome with `success: false` and `error`, never an error of the whole fan-out (a guard's
 * outcome is measured on the handoff's scheduler from the task's start, a timeout's `durationMs` its limit,
 * and has the task's prompt as `input`). An agent target
 * gets a default {@link Handoff}; a `Handoff` target keeps its own settings and semaphore. With the `run`
 * option, the fan-out is a `parallel-handoffs` node of that run; for a run of its own, use the twin
 * {@link parallelHandoffsEvents$}.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { parallelHandoffs$ } from '@rxagents/handoff';
 *
 * const billing = defineAgent('billing', async () => 'refunded the duplicate charge');
 * const refunds = defineAgent('refunds', async () => 'refund for #42 started');
 * parallelHandoffs$({ id: 'triage' }, [[billing, 'Why was I charged twice?'], [refunds, 'Refund order #42']]).subscribe((outcomes) =>
 *   outcomes.forEach((o) => console.log(o.handedOffTo, o.success)),
 * );
 * ```
 */
export function parallelHandoffs$(source: HandoffSource, tasks: readonly ParallelHandoffTask[], options: ParallelHandoffsOptions = {}): Observable<HandoffOutcome[]> {
  const { maxConcurrent, messages, run } = checkParallel(source, tasks, options);
  if (run === undefined) return fanOut$(source, tasks, maxConcurrent, messages, undefined);
  return traceResult(run, 'parallel-handoffs', inputOf(tasks), (node) => fanOut$(source, tasks, maxConcurrent, messages, node), describeOutcomes);
}

/**
 * The fan-out's run events: the same run as {@link parallelHandoffs$}, as a new run named
 * `parallel-handoffs` whose events you get as they happen (the twin of `parallelHandoffs$`; to put the
 * fan-out inside a run of your own, pass its `run` option instead).
 *
 * @remarks
 * One run per subscription: `run-start` (input: the tasks' prompts, one a line), then each task's
 * `handoff` node (its `handoff` event and the target's call, deltas as they come; running side by side, so
 * their events interleave), then `run-end`: `success` when every task succeeded, else the first failed
 * task's error serialised (a guard's typed error: cycle, depth, timeout, concurrency). Every event's `at`
 * is read from the first `Handoff` target's scheduler, else `asyncScheduler`. Unsubscribing aborts every
 * running target.
 *
 * With `store` and `runId` the run is durable: journaled in the store, and resumed from its journal when the store already holds `runId` (finished agent calls are answered from it; see `docs/durable.md`).
 *
 * @param source - Who hands off.
 * @param tasks - The targets and their prompts.
 * @param options - As for `parallelHandoffs$`, without `run` (and without `signal`: unsubscribe instead).
 * @returns The run's events.
 * @throws {@link @rxagents/core!ConfigError | ConfigError} when a task or an option is invalid.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { parallelHandoffsEvents$ } from '@rxagents/handoff';
 *
 * const billing = defineAgent('billing', async () => 'refunded the duplicate charge');
 * const refunds = defineAgent('refunds', async () => 'refund for #42 started');
 * parallelHandoffsEvents$({ id: 'triage' }, [[billing, 'Why was I charged twice?'], [refunds, 'Refund order #42']]).subscribe((event) => {
 *   if (event.type === 'handoff') console.log(event.to); // billing, then refunds
 * });
 * ```
 */
export function parallelHandoffsEvents$(
  source: HandoffSource,
  tasks: readonly ParallelHandoffTask[],
  eventsOptions: Omit<ParallelHandoffsOptions, 'run' | 'signal'> & RunEventsOptions = {},
): Observable<RunEvent> {
  const { run: runOptions, options = {} } = splitEventsOptions('parallelHandoffs events options', eventsOptions);
  const { maxConcurrent, messages } = checkParallel(source, tasks, options);
  const first = tasks.find(([target]) => target instanceof Handoff)?.[0] as Handoff | undefined;
  return observeRun('parallel-handoffs', inputOf(tasks), (run) => fanOut$(source, tasks, maxConcurrent, messages, run), {
    ...runOptions,
    scheduler: first?.config.scheduler ?? asyncScheduler,
    describe: describeOutcomes,
  });
}

/** Refuses a source without a non-blank id, invalid tasks and options; returns the options parsed. */
function checkParallel(source: unknown, tasks: readonly ParallelHandoffTask[], options: ParallelHandoffsOptions): ReturnType<typeof ParallelHandoffsOptionsSchema.parse> {
  if (!hasId(source)) throw new ConfigError('parallelHandoffs source', [{ path: '', rule: 'must be an object with a non-blank id', received: source }]);
  const parsed = parseConfig(ParallelHandoffsOptionsSchema, options, 'parallelHandoffs options');
  if (!Array.isArray(tasks)) throw new ConfigError('parallelHandoffs tasks', [{ path: '', rule: 'must be an array', received: tasks }]);
  tasks.forEach((task, index) => {
    const [target, prompt] = Array.isArray(task) ? task : [];
    if (typeof prompt !== 'string' || !(target instanceof Handoff || isAgent(target)) || (task as readonly unknown[]).length !== 2) {
      throw new ConfigError('parallelHandoffs tasks', [{ path: String(index), rule: 'must be a [target, prompt] pair: an agent or a Handoff, and a string', received: task }]);
    }
  });
  const ids = new DistinctAgentIds('parallelHandoffs tasks');
  tasks.forEach(([target], index) => ids.add(target instanceof Handoff ? target.agent : target, String(index)));
  return parsed;
}

/** The tasks' prompts, one a line: the fan-out's input as a run node. */
function inputOf(tasks: readonly ParallelHandoffTask[]): string {
  return tasks.map(([, prompt]) => prompt).join('\n');
}

/** A fan-out's outcome: a success when every task succeeded, else the first failure's error. */
function describeOutcomes(outcomes: readonly HandoffOutcome[]): RunOutcome {
  const failed = outcomes.find((outcome) => !outcome.success);
  return failed === undefined ? { success: true } : { success: false, error: failed.error };
}

/** Runs the tasks, each as a handoff reporting into `run` when there is one. */
function fanOut$(source: HandoffSource, tasks: readonly ParallelHandoffTask[], maxConcurrent: number, messages: readonly Message[] | undefined, run: RunContext | undefined): Observable<HandoffOutcome[]> {
  return defer(() => {
    const snapshot = [...currentHandoffChain()];
    const handoffs = tasks.map(([target]) => (target instanceof Handoff ? target : new Handoff({ agent: target })));
    return from(tasks.map((task, index) => ({ prompt: task[1], index }))).pipe(
      mergeMap(
        ({ prompt, index }) => {
          const handoff = handoffs[index] as Handoff;
          const handoffChain = [...snapshot];
          const request = { input: prompt, handoffChain, ...(messages === undefined ? {} : { messages }) };
          const scheduler = handoff.config.scheduler ?? asyncScheduler;
          return defer(() => {
            // A guard's outcome (a timeout after its limit, a refusal at once) is measured from the task's start.
            const startedAt = scheduler.now();
            return handoff.execute$(source, request, run === undefined ? undefined : { run }).pipe(
              catchError((error: unknown) => {
                const agentId = handoff.agent.id;
                const context = { input: prompt, messages: [], handoffChain: Object.freeze([...handoffChain, source.id]) };
                const durationMs = scheduler.now() - startedAt;
                return of<HandoffOutcome>({ ...failedCall(agentId, error, startedAt, durationMs, prompt), handedOffTo: agentId, durationSeconds: durationMs / 1000, context });
              }),
            );
          }).pipe(map((outcome) => ({ index, outcome })));
        },
        maxConcurrent <= 0 ? Number.POSITIVE_INFINITY : maxConcurrent,
      ),
      reduce((outcomes, { index, outcome }) => {
        outcomes[index] = outcome;
        return outcomes;
      }, new Array<HandoffOutcome>(tasks.length)),
    );
  });
}

/**
 * The Promise form of {@link parallelHandoffs$}: resolves with every outcome, in input order.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { parallelHandoffs } from '@rxagents/handoff';
 *
 * const billing = defineAgent({ id: 'billing', name: 'Billing', chat: async () => 'Charged once, refunded once.' });
 * const refund = defineAgent({ id: 'refunds', name: 'Refunds', chat: async () => 'Refund started.' });
 * const triage = defineAgent({ id: 'triage', name: 'Triage', chat: async () => '' });
 * const results = await parallelHandoffs(triage, [[billing, 'Why was I charged twice?'], [refund, 'I want a refund for order #42']], { maxConcurrent: 5 });
 * for (const r of results) console.log(r.handedOffTo, r.success, r.durationSeconds);
 * ```
 */
export function parallelHandoffs(source: HandoffSource, tasks: readonly ParallelHandoffTask[], options: ParallelHandoffsOptions = {}): Promise<HandoffOutcome[]> {
  let outcomes$: Observable<HandoffOutcome[]>;
  try {
    outcomes$ = parallelHandoffs$(source, tasks, options);
  } catch (error) {
    // A Promise API rejects: an invalid source, task or option is a rejection with a ConfigError, never a throw.
    return Promise.reject(error);
  }
  return lastValue(outcomes$, options.signal === undefined ? {} : { signal: options.signal });
}
