import { configRules, parseConfig, type RunEvent, type RunEventsOptions } from '@rxagents/core';
import { defer, type Observable } from 'rxjs';
import { z } from 'zod';
import { ChoreographyEngine } from './ChoreographyEngine';
import { checkEngineOptions, engineOptionsShape } from './ChoreographyEngineOptions';
import { ChoreographyRunOptionsSchema } from './ChoreographyRunOptions';
import type { ExecuteChoreographyOptions } from './executeChoreography';

const { bus: _bus, ...runShape } = engineOptionsShape;
const OptionsSchema = z
  .strictObject({ ...runShape, input: ChoreographyRunOptionsSchema.shape.input, ...configRules.runEventsOptions().shape })
  .superRefine(checkEngineOptions);

/**
 * Runs a spec once per subscription on a fresh {@link ChoreographyEngine} and emits the run's
 * `RunEvent`s: the per-request form of `ChoreographyEngine.events$`.
 *
 * @remarks
 * Named like `observeRun` from `@rxagents/core`, whose events it emits for a choreography: a cold
 * Observable, one run per subscription, a root `choreography` node with the published events, each
 * agent call with its text deltas, each step and the termination, then `run-end` with the result's
 * `success`, and completion (also when the run failed). Unsubscribing cancels that run only. Takes the
 * options of {@link executeChoreography$} but `run` (this run is its own root; to nest a choreography
 * in another run, pass `run` to `executeChoreography$` instead). A bad option, a target with no agent
 * or an interaction that can never trigger throws `ConfigError` when `observeChoreography` is called.
 *
 * @example
 * ```ts
 * import { ChoreographySpec, observeChoreography } from '@rxagents/choreography';
 * import { defineAgent } from '@rxagents/core';
 * import { from } from 'rxjs';
 *
 * const spec = ChoreographySpec.builder('story').initialEvent('go').interaction('tell', 'user', 'teller', 'go', null, 'Tell a story').build();
 * const teller = defineAgent('teller', () => from(['Once ', 'upon ', 'a time']));
 * observeChoreography({ spec, agents: { teller }, input: 'dragons' }).subscribe((event) => {
 *   if (event.type === 'text-delta') console.log(event.delta); // Once , upon , a time
 * });
 * ```
 */
export function observeChoreography(options: Omit<ExecuteChoreographyOptions, 'run'> & RunEventsOptions): Observable<RunEvent> {
  const { input, pace, ...engineOptions } = parseConfig(OptionsSchema, options, 'observeChoreography options');
  return defer(() => new ChoreographyEngine(engineOptions).events$({ input, pace }));
}
