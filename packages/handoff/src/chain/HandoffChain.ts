import { defer, Observable, toArray } from 'rxjs';
import { z } from 'zod';
import { ConfigError, lastValue, observeRun, parseConfig, traceRun, traceResult, type Agent, type RunContext, type RunEvent, type RunEventsOptions } from '@rxagents/core';
import { HandoffContext } from '../context/HandoffContext';
import type { HandoffChainStep } from './HandoffChainStep';
import type { HandoffPredicate } from './HandoffPredicate';
import type { HandoffResult } from '../strategy/HandoffResult';
import type { HandoffExecuteOptions, HandoffSource, HandoffStrategy } from '../strategy/HandoffStrategy';
import { HandoffExecuteOptionsSchema } from '../strategy/DefaultHandoff';
import { HandoffChainOptionsSchema, type HandoffChainOptions } from './HandoffChainOptions';
import { ChainRun } from './ChainRun';
import { describeCall } from '../internal/describeCall';
import { describeSteps } from './describeSteps';
import { checkStrategy, DistinctAgentIds, HandoffStepSchema, isStep, splitEventsOptions } from '../internal/rules';

/**
 * Builds a {@link HandoffChain}: `HandoffChain.builder().add(a).add(b, predicate).build()`.
 *
 * @remarks
 * Without {@link HandoffChainBuilder.from}, the first agent added is only the source; with it, every
 * agent added runs and the first receives from that source.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { HandoffChain } from '@rxagents/handoff';
 *
 * const agent = (id: string) => defineAgent(id, async () => id);
 * const chain = HandoffChain.builder().add(agent('intake')).add(agent('writer')).build();
 * console.log(chain.steps.length); // 2
 * ```
 */
export class HandoffChainBuilder {
  readonly #steps: HandoffChainStep[] = [];
  readonly #ids = new DistinctAgentIds('HandoffChain');
  #from: HandoffSource | undefined;

  /**
   * Makes every agent of the chain run: the first receives from `source` (default `{ id: 'caller' }`),
   * so no agent has to stand in as a source that never runs.
   *
   * @example
   * ```ts
   * import { defineAgent } from '@rxagents/core';
   * import { DefaultHandoff, HandoffChain, HandoffContext } from '@rxagents/handoff';
   *
   * const agent = (id: string) => defineAgent(id, async () => id);
   * const chain = HandoffChain.builder().from({ id: 'gateway' }).add(agent('extractor')).add(agent('writer')).build();
   * const results = await chain.execute(new DefaultHandoff(), HandoffContext.of('t-1'));
   * console.log(results.map((r) => `${r.fromAgentId}->${r.toAgentId}`)); // [ 'gateway->extractor', 'extractor->writer' ]
   * ```
   */
  from(source: HandoffSource = CALLER): this {
    checkSource(source);
    this.#from = source;
    return this;
  }

  /** Appends an agent; with a `predicate`, the step is skipped when it answers `false`. */
  add(agent: Agent, predicate?: HandoffPredicate): this {
    const step = predicate === undefined ? { agent } : { agent, predicate };
    checkStep(step, this.#steps.length);
    this.#ids.add(agent, `steps.${this.#steps.length}.agent`);
    this.#steps.push(step);
    return this;
  }

  /** The chain, with the steps added so far (later `add` calls do not change it). */
  build(): HandoffChain {
    return this.#from === undefined ? new HandoffChain(this.#steps) : new HandoffChain(this.#steps, { from: this.#from });
  }
}

/**
 * A fixed sequence of handoffs: each agent hands its output to the next.
 *
 * @remarks
 * Built with a source (`options.from`, or the builder's `from()`), every agent runs and the first receives
 * from that source. Built without one, the first agent is only the source and never runs. Each later agent
 * receives a handoff from the previous one that ran; the next context's payload is just `{ previousOutput: <output> }`, while the
 * task id and metadata carry over. A step added with a predicate is skipped when the predicate answers
 * `false` (predicates may answer later, as a Promise or Observable). The chain stops at the first failed
 * step (a predicate that throws counts as that step failing). `execute$` emits one array with one result
 * per step that ran (`[]` when no agent runs); `steps$` emits each step's result as it arrives.
 * Unsubscribing (or aborting `options.signal`) aborts the running agent.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { DefaultHandoff, HandoffChain, HandoffContext } from '@rxagents/handoff';
 *
 * const agent = (id: string) => defineAgent(id, async (input) => `${id}(${input.length})`);
 * const chain = HandoffChain.builder()
 *   .add(agent('intake'))
 *   .add(agent('extractor'))
 *   .add(agent('translator'), (context) => context.metadata.language === 'de')
 *   .add(agent('writer'))
 *   .build();
 * const results = await chain.execute(new DefaultHandoff(), HandoffContext.of('invoice-42', { document: '...' }));
 * console.log(results.map((r) => r.toAgentId)); // [ 'extractor', 'writer' ]
 * ```
 */
export class HandoffChain {
  /** The steps, in order; without {@link HandoffChain.source}, the first is only the source. */
  readonly steps: readonly HandoffChainStep[];
  /** Who hands off to the first step, when every step runs; `undefined` when the first step is the source. */
  readonly source: HandoffSource | undefined;

  constructor(steps: readonly HandoffChainStep[], options: HandoffChainOptions = {}) {
    if (!Array.isArray(steps)) parseConfig(z.strictObject({ steps: z.array(z.unknown()) }), { steps }, 'HandoffChain');
    parseConfig(HandoffChainOptionsSchema, options, 'HandoffChain options');
    this.source = options.from;
    steps.forEach(checkStep);
    const ids = new DistinctAgentIds('HandoffChain');
    steps.forEach((step, index) => ids.add(step.agent, `steps.${index}.agent`));
    this.steps = Object.freeze([...steps]);
  }

  /**
   * Starts building a chain.
   *
   * @example
   * ```ts
   * import { HandoffChain } from '@rxagents/handoff';
   *
   * const empty = HandoffChain.builder().build();
   * console.log(empty.steps.length); // 0
   * ```
   */
  static builder(): HandoffChainBuilder {
    return new HandoffChainBuilder();
  }

  /**
   * Runs the chain and emits each step's result as it arrives, then completes; never errors.
   *
   * @remarks
   * The stream of the run's steps, for a progress UI: {@link HandoffChain.execute$} emits the same
   * results gathered in one array when the run ends.
   *
   * @example
   * ```ts
   * import { defineAgent } from '@rxagents/core';
   * import { DefaultHandoff, HandoffChain, HandoffContext } from '@rxagents/handoff';
   *
   * const agent = (id: string) => defineAgent(id, async () => id);
   * const chain = HandoffChain.builder().add(agent('a')).add(agent('b')).add(agent('c')).build();
   * chain.steps$(new DefaultHandoff(), HandoffContext.of('t-1')).subscribe((r) => console.log(r.toAgentId)); // b, c
   * ```
   */
  steps$(handoff: HandoffStrategy, context: HandoffContext, options?: HandoffExecuteOptions): Observable<HandoffResult> {
    const run = checkChainCall(handoff, context, options);
    if (run === undefined) return this.#steps$(handoff, context, options);
    return traceRun(run, 'chain', context.taskId, (node) => this.#steps$(handoff, context, underNode(options, node)), describeCall);
  }

  #steps$(handoff: HandoffStrategy, context: HandoffContext, options: HandoffExecuteOptions | undefined): Observable<HandoffResult> {
    const { steps, source } = this;
    const from = source ?? steps[0]?.agent;
    const firstStep = source === undefined ? 1 : 0;
    return new Observable<HandoffResult>((subscriber) => {
      if (from === undefined || steps.length <= firstStep) {
        subscriber.complete();
        return undefined;
      }
      const run = new ChainRun(subscriber, steps, handoff, context, options, from, firstStep);
      run.pump();
      return run;
    });
  }

  /**
   * Runs the chain; emits one array of results (one per step that ran), never errors.
   *
   * @example
   * ```ts
   * import { defineAgent } from '@rxagents/core';
   * import { DefaultHandoff, HandoffChain, HandoffContext } from '@rxagents/handoff';
   *
   * const agent = (id: string) => defineAgent(id, async () => id);
   * const chain = HandoffChain.builder().add(agent('a')).add(agent('b')).build();
   * chain.execute$(new DefaultHandoff(), HandoffContext.of('t-1')).subscribe((results) => console.log(results.length)); // 1
   * ```
   */
  execute$(handoff: HandoffStrategy, context: HandoffContext, options?: HandoffExecuteOptions): Observable<HandoffResult[]> {
    const run = checkChainCall(handoff, context, options);
    if (run === undefined) return this.#steps$(handoff, context, options).pipe(toArray());
    return traceResult(run, 'chain', context.taskId, (node) => this.#steps$(handoff, context, underNode(options, node)).pipe(toArray()), describeSteps);
  }

  /**
   * The chain's run events: the same run as {@link HandoffChain.execute$}, as a new run named `chain`
   * whose events you get as they happen.
   *
   * @remarks
   * One run per subscription: `run-start` (input: the task id), then for each step that runs, a
   * `handoff` node from `handoff` (a `DefaultHandoff` reports its `handoff` event and the receiver's call,
   * deltas as they come, under it; a strategy of your own gets the node as the `run` option), then
   * `run-end`: `success` when every step succeeded, with the last step's output, else the first failure's
   * error serialised. A step skipped by its predicate says nothing. Every event's `at` is read from
   * `options.scheduler` (default `asyncScheduler`). Unsubscribing aborts the running step.
   *
   * With `store` and `runId` the run is durable: journaled in the store, and resumed from its journal when the store already holds `runId` (finished agent calls are answered from it; see `docs/durable.md`).
   *
   * @param handoff - The strategy each step runs through.
   * @param context - The task.
   * @param options - As for `execute$`, without `run`.
   * @returns The run's events.
   * @throws {@link @rxagents/core!ConfigError | ConfigError} when `context` is not a `HandoffContext` or an option is invalid.
   *
   * @example
   * ```ts
   * import { defineAgent } from '@rxagents/core';
   * import { DefaultHandoff, HandoffChain, HandoffContext } from '@rxagents/handoff';
   *
   * const chain = HandoffChain.builder()
   *   .add(defineAgent('intake', async () => 'ok'))
   *   .add(defineAgent('billing', async () => 'billed'))
   *   .add(defineAgent('audit', async () => 'audited'))
   *   .build();
   * chain.events$(new DefaultHandoff(), HandoffContext.of('invoice-42')).subscribe((event) => {
   *   if (event.type === 'handoff') console.log(`${event.from} -> ${event.to}`); // intake -> billing, billing -> audit
   * });
   * ```
   */
  events$(handoff: HandoffStrategy, context: HandoffContext, eventsOptions?: Omit<HandoffExecuteOptions, 'run'> & RunEventsOptions): Observable<RunEvent> {
    const { run: runOptions, options } = splitEventsOptions('HandoffChain events options', eventsOptions);
    checkChainCall(handoff, context, options);
    return observeRun('chain', context.taskId, (run) => this.#steps$(handoff, context, underNode(options, run)).pipe(toArray()), {
      ...runOptions,
      scheduler: options?.scheduler,
      describe: describeSteps,
    });
  }

  /**
   * The Promise form of {@link HandoffChain.execute$}; invalid arguments reject with a `ConfigError` rather than throw.
   *
   * @example
   * ```ts
   * import { defineAgent } from '@rxagents/core';
   * import { DefaultHandoff, HandoffChain, HandoffContext } from '@rxagents/handoff';
   *
   * const agent = (id: string) => defineAgent(id, async () => id);
   * const results = await HandoffChain.builder().add(agent('a')).add(agent('b')).build().execute(new DefaultHandoff(), HandoffContext.of('t-1'));
   * console.log(results[0]?.output); // b
   * ```
   */
  execute(handoff: HandoffStrategy, context: HandoffContext, options?: HandoffExecuteOptions): Promise<HandoffResult[]> {
    // defer: an invalid argument rejects the Promise rather than throwing from the call.
    return lastValue(defer(() => this.execute$(handoff, context, options)));
  }
}

/** The sender a chain with `from()` and no source given uses. */
/** Refuses a strategy without `execute$`, a context that is not a `HandoffContext` and invalid options; returns the run, if any. */
function checkChainCall(handoff: unknown, context: unknown, options: HandoffExecuteOptions | undefined): RunContext | undefined {
  checkStrategy('HandoffChain', handoff);
  if (!(context instanceof HandoffContext)) {
    throw new ConfigError('HandoffChain', [{ path: 'context', rule: 'must be a HandoffContext (build one with new HandoffContext or HandoffContext.of)', received: context }]);
  }
  return options === undefined ? undefined : parseConfig(HandoffExecuteOptionsSchema, options, 'HandoffChain options').run;
}

/** `options` with the run node every step reports into. */
function underNode(options: HandoffExecuteOptions | undefined, run: RunContext | undefined): HandoffExecuteOptions {
  return { ...options, run };
}

const CALLER: HandoffSource = Object.freeze({ id: 'caller' });

function checkSource(source: unknown): void {
  parseConfig(HandoffChainOptionsSchema, { from: source }, 'HandoffChain');
}

/** Refuses a step that is not `{ agent, predicate? }`, naming it by index (O(1) per step: chains may be long). */
function checkStep(step: unknown, index: number): void {
  if (!isStep(step, false)) parseConfig(z.strictObject({ steps: z.strictObject({ [String(index)]: HandoffStepSchema }) }), { steps: { [index]: step } }, 'HandoffChain');
}
