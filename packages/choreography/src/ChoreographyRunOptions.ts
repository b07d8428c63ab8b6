import { configRules, type RunContext } from '@rxagents/core';
import { z } from 'zod';

/**
 * The zod schema of {@link ChoreographyRunOptions}: strict, `input` a string and `run` a run context if given.
 *
 * @example
 * ```ts
 * import { ChoreographyRunOptionsSchema } from '@rxagents/choreography';
 *
 * console.log(ChoreographyRunOptionsSchema.safeParse({ input: 'hello' }).success); // true
 * console.log(ChoreographyRunOptionsSchema.safeParse({ inptu: 'hello' }).success); // false
 * ```
 */
export const ChoreographyRunOptionsSchema = z.strictObject({
  input: z.string({ error: 'must be a string' }).optional(),
  run: configRules.runContext().optional(),
});

/**
 * What one run of an engine takes: the input its initial events carry, and the run to report into.
 *
 * @example
 * ```ts
 * import { ChoreographyEngine, ChoreographySpec, type ChoreographyRunOptions } from '@rxagents/choreography';
 * import { defineAgent } from '@rxagents/core';
 *
 * const spec = ChoreographySpec.builder('echo').initialEvent('request').interaction('echo', 'user', 'echo', 'request', null, 'Repeat').build();
 * const run: ChoreographyRunOptions = { input: 'hello' };
 * const result = await new ChoreographyEngine({ spec, agents: { echo: defineAgent('echo', async (input) => input) } }).execute(run);
 * console.log(JSON.stringify(result.stepResults[0]?.output)); // "Repeat\n\nContext: hello"
 * ```
 */
export interface ChoreographyRunOptions {
  /**
   * The run's input: carried by the initial events, so the first interactions' agents receive their
   * task followed by `Context: <input>`.
   */
  readonly input?: string;
  /**
   * The run to report into, for example the `ChatOptions.run` an agent was given: the choreography
   * becomes a `choreography` node of that run, with its published events, its agents' calls (every
   * text delta as it is emitted), its steps and its termination under it. Without it nothing is
   * reported and nothing is spent on reporting.
   */
  readonly run?: RunContext;
}
