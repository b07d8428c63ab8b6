import { configRules, type RunContext } from '@rxagents/core';
import { z } from 'zod';

/**
 * Options of a pattern's `execute$` and `snapshots$` (builders and `ComposedAgent` alike).
 *
 * @example
 * ```ts
 * import { defineAgent, observeRun } from '@rxagents/core';
 * import { Patterns, type RunOptions } from '@rxagents/patterns';
 *
 * const vote = Patterns.voting({ agents: [defineAgent('a', async () => 'yes')] });
 * // Report the vote as a node of a bigger run of your own.
 * observeRun('release', 'Ship it?', (run) => {
 *   const options: RunOptions = { run };
 *   return vote.execute$('Ship it?', options);
 * }).subscribe((event) => console.log(event.type));
 * ```
 */
export interface RunOptions {
  /**
   * The run to report into: the pattern becomes a node of it (`run-start`, its agent calls with their
   * tokens, `message`, `round-end`, `termination`, `run-end`). Usually a context you were given
   * (`ChatOptions.run` in an agent, or the `run` of `observeRun`'s body).
   */
  readonly run?: RunContext;
}

/**
 * The zod schema of {@link RunOptions}.
 *
 * @remarks
 * Strict: an unknown key is an error.
 *
 * @example
 * ```ts
 * import { RunOptionsSchema } from '@rxagents/patterns';
 *
 * console.log(RunOptionsSchema.safeParse({}).success, RunOptionsSchema.safeParse({ run: 'r1' }).success); // true false
 * ```
 */
export const RunOptionsSchema = z.strictObject({ run: configRules.runContext().optional() });

/** What every `events$` of the package takes besides its arguments: `pace`, and `store`, `runId`, `leaseTtlMs`, `leaseOwner` of a durable run. @internal */
export const EventsOptionsSchema = configRules.runEventsOptions().extend(configRules.durableRunOptions().shape);
