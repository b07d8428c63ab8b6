import { defer, last, type Observable } from 'rxjs';
import { configRules, lastValue, parseConfig } from '@rxagents/core';
import { z } from 'zod';
import { ComposedAgent, type ComposedAgentOptions } from './ComposedAgent';
import type { ExecutionModel } from './ExecutionModel';
import type { ExecutionResult } from './ExecutionResult';
import { runModel } from './runModel';

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
export interface ExecuteOptions {
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
export const ExecuteOptionsSchema = z.strictObject({ signal: configRules.abortSignal().optional() });

const Input = z.string({ error: 'must be a string' });

/**
 * What every pattern builder offers: `build()`, `execute()`, `execute$()`, `snapshots$()`, `asAgent()`.
 *
 * @remarks
 * Builders are immutable: a mode switch such as `.overChannel()` returns a new builder. `execute(input)`
 * is a Promise of the final {@link ExecutionResult}; `execute$(input)` is the same run as a cold
 * Observable (each subscription is a run) that emits that one result; `snapshots$(input)` also emits every
 * `running` snapshot before it, for a live view. All run on the model's backend: the orchestrated
 * driver, or a channel after `.overChannel()`.
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

  /** One run on `input`, as a cold Observable of the final result only (what {@link PatternBuilder.execute} resolves to). */
  execute$(input: string): Observable<ExecutionResult<T>> {
    return this.snapshots$(input).pipe(last());
  }

  /** One run on `input`: every `running` snapshot, then the final result (the live projection). */
  snapshots$(input: string): Observable<ExecutionResult<T>> {
    return defer(() => runModel(this.build(), parseConfig(Input, input, 'Pattern input')));
  }

  /** One run on `input`, as a Promise of the final result; `signal` cancels it. */
  execute(input: string, options: ExecuteOptions = {}): Promise<ExecutionResult<T>> {
    try {
      parseConfig(ExecuteOptionsSchema, options, 'execute options');
    } catch (error: unknown) {
      return Promise.reject(error);
    }
    return lastValue(this.execute$(input), options);
  }

  /** This pattern as one agent, for a supervisor or another pattern. */
  asAgent(id: string, options?: ComposedAgentOptions<T>): ComposedAgent<T> {
    return new ComposedAgent(id, this.build(), options);
  }
}
