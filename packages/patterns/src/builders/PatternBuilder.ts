import { defer, type Observable } from 'rxjs';
import { configRules, lastValue, observeRun, parseConfig, type RunEvent, type RunEventsOptions, traceResult, traceRun } from '@rxagents/core';
import { z } from 'zod';
import { ComposedAgent, type ComposedAgentOptions } from '../agents/ComposedAgent';
import type { ExecutionModel } from '../execution/ExecutionModel';
import type { ExecutionResult } from '../execution/ExecutionResult';
import { describeResult } from '../execution/patternEvents';
import { patternInput } from './patternInput';
import { runModel } from '../execution/runModel';
import { runModelToEnd } from '../execution/runModelToEnd';
import { EventsOptionsSchema, type RunOptions, RunOptionsSchema } from '../execution/RunOptions';


/**
 * Options of {@link PatternBuilder.execute}.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns, type ExecuteOptions } from '@rxagents/patterns';
 *
 * const a = defineAgent('a', async () => 'yes');
 * // Give up (and abort every agent call in flight) after 30 s.
 * const options: ExecuteOptions = { signal: AbortSignal.timeout(30_000) };
 * const result = await Patterns.voting({ agents: [a] }).execute('Ship it?', options);
 * console.log(result.output); // yes
 * ```
 */
export interface ExecuteOptions extends RunOptions {
  /** Aborting it cancels the run (every agent call in flight is aborted) and rejects with its reason. */
  readonly signal?: AbortSignal;
}

/**
 * The zod schema of {@link ExecuteOptions}.
 *
 * @remarks
 * Strict: an unknown key is an error (a misspelt `signal` would otherwise mean "never cancel").
 *
 * @example
 * ```ts
 * import { ExecuteOptionsSchema } from '@rxagents/patterns';
 *
 * console.log(ExecuteOptionsSchema.safeParse({ signl: AbortSignal.timeout(1_000) }).success); // false
 * ```
 */
export const ExecuteOptionsSchema = z.strictObject({ signal: configRules.abortSignal().optional(), run: configRules.runContext().optional() });


/**
 * What every pattern builder offers: `build()`, `execute()`, `execute$()`, `snapshots$()`, `events$()`, `asAgent()`.
 *
 * @remarks
 * Builders are immutable: a mode switch such as `.overChannel()` returns a new builder. `execute(input)`
 * is a Promise of the final {@link ExecutionResult}; `execute$(input)` is the same run as a cold
 * Observable (each subscription is a run) that emits that one result; `snapshots$(input)` also emits every
 * `running` snapshot before it, for a live view. All run on the model's backend: the orchestrated
 * driver, or a channel after `.overChannel()`. `events$(input)` is the same run again, as the
 * {@link RunEvent}s a UI renders; given `{ run }`, the other three report into a run of yours instead.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns } from '@rxagents/patterns';
 *
 * const a = defineAgent('a', async () => 'yes');
 * const b = defineAgent('b', async () => 'no');
 * const c = defineAgent('c', async () => 'yes');
 * const result = await Patterns.voting({ agents: [a, b, c] }).execute('Release today?');
 * console.log(result.status, result.output); // completed yes
 * ```
 */
export abstract class PatternBuilder<T> {
  /** The validated, frozen model of this pattern. */
  abstract build(): ExecutionModel<T>;

  /**
   * One run on `input`, as a cold Observable of the final result only (what {@link PatternBuilder.execute} resolves to).
   * With `{ run }`, the run is reported into it as a node named after the pattern.
   */
  execute$(input: string, options?: RunOptions): Observable<ExecutionResult<T>> {
    // The final result only: the orchestrated driver then builds no `running` snapshot nobody would read.
    const topic = patternInput(input);
    if (options === undefined) return defer(() => runModelToEnd(this.build(), topic));
    const { run } = parseConfig(RunOptionsSchema, options, 'run options');
    return defer(() => {
      const model = this.build();
      return traceResult(run, model.pattern, topic, (node) => runModelToEnd(model, topic, node), describeResult);
    });
  }

  /**
   * One run on `input`: every `running` snapshot, then the final result (the live projection). With
   * `{ run }`, the run is reported into it as a node named after the pattern.
   */
  snapshots$(input: string, options?: RunOptions): Observable<ExecutionResult<T>> {
    const topic = patternInput(input);
    if (options === undefined) return defer(() => runModel(this.build(), topic));
    const { run } = parseConfig(RunOptionsSchema, options, 'run options');
    return defer(() => {
      const model = this.build();
      return traceRun(run, model.pattern, topic, (node) => runModel(model, topic, node), describeResult);
    });
  }

  /**
   * One run on `input`, as its {@link RunEvent}s: `run-start` (named after the pattern, `debate` say),
   * every agent call with each token as the agent emits it (a judge's and a supervisor's included),
   * a `message` per reply posted, `round-end` per round, `termination` when it stops, over a channel a
   * `metrics` sample of the channel, then `run-end` with the result's outcome (a `failed` status fails;
   * any other ends with the output). Cold; unsubscribing cancels the run and aborts every agent call.
   * The same code as {@link PatternBuilder.execute$}: only the reporting differs.
   *
   * With `store` and `runId` the run is durable: journaled in the store, and resumed from its journal when the store already holds `runId` (finished agent calls are answered from it; see `docs/durable.md`).
   *
   * @example
   * ```ts
   * import { defineAgent } from '@rxagents/core';
   * import { Patterns } from '@rxagents/patterns';
   *
   * const pro = defineAgent('pro', async () => 'Ship it.');
   * const con = defineAgent('con', async () => 'Wait a week.');
   * Patterns.debate({ agents: [pro, con], maxRounds: 1 })
   *   .events$('Release today?')
   *   .subscribe((event) => {
   *     if (event.type === 'message') console.log(`${event.speaker}: ${event.content}`);
   *   });
   * // pro: Ship it.
   * // con: Wait a week.
   * ```
   */
  events$(input: string, options: RunEventsOptions = {}): Observable<RunEvent> {
    const topic = patternInput(input);
    const runOptions = parseConfig(EventsOptionsSchema, options, 'events$ options');
    return defer(() => {
      const model = this.build();
      return observeRun(model.pattern, topic, (node) => runModelToEnd(model, topic, node), { ...runOptions, scheduler: model.scheduler, describe: describeResult });
    });
  }

  /** One run on `input`, as a Promise of the final result; `signal` cancels it, `run` reports it into a run (see {@link PatternBuilder.execute$}). */
  execute(input: string, options: ExecuteOptions = {}): Promise<ExecutionResult<T>> {
    try {
      const { run } = parseConfig(ExecuteOptionsSchema, options, 'execute options');
      return lastValue(run === undefined ? this.execute$(input) : this.execute$(input, { run }), options);
    } catch (error: unknown) {
      return Promise.reject(error);
    }
  }

  /** This pattern as one agent, for a supervisor or another pattern. */
  asAgent(id: string, options?: ComposedAgentOptions<T>): ComposedAgent<T> {
    return new ComposedAgent(id, this.build(), options);
  }
}
