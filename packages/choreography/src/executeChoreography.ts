import { configRules, lastValue, parseConfig } from '@rxagents/core';
import { defer, type Observable } from 'rxjs';
import { z } from 'zod';
import { ChoreographyEngine } from './ChoreographyEngine';
import { checkEngineOptions, engineOptionsShape } from './ChoreographyEngineOptions';
import type { ChoreographyResult } from './ChoreographyResult';
import { type ChoreographyRunOptions, ChoreographyRunOptionsSchema } from './ChoreographyRunOptions';

const { bus: _bus, ...runShape } = engineOptionsShape;
const { input: inputRule, run: runRule } = ChoreographyRunOptionsSchema.shape;

/**
 * The zod schema of {@link ExecuteChoreographyOptions}: the engine options without `bus`, plus `input`
 * and `run`.
 *
 * @remarks
 * Checked the same way as {@link ChoreographyEngineOptionsSchema}: every target has an agent (or is
 * one of `remoteAgents`) and every interaction can be triggered. There is no `bus`: an engine closes
 * its bus when its run ends, so a bus cannot serve several runs; build a {@link ChoreographyEngine}
 * per run to give each its own.
 *
 * @example
 * ```ts
 * import { ChoreographySpec, ExecuteChoreographyOptionsSchema } from '@rxagents/choreography';
 * import { defineAgent } from '@rxagents/core';
 *
 * const spec = ChoreographySpec.builder('ping').initialEvent('go').interaction('ping', 'a', 'b', 'go', null, 'Say ping').build();
 * const b = defineAgent('b', async () => 'ping');
 * console.log(ExecuteChoreographyOptionsSchema.safeParse({ spec, agents: { b }, input: 'hello' }).success); // true
 * console.log(ExecuteChoreographyOptionsSchema.safeParse({ spec, agents: { b }, inptu: 'hello' }).success); // false
 * ```
 */
export const ExecuteChoreographyOptionsSchema = z.strictObject({ ...runShape, input: inputRule, run: runRule }).superRefine(checkEngineOptions);

/**
 * What {@link executeChoreography$} takes: the engine options (but `bus`), the run's `input` and the
 * `run` to report into (see {@link ChoreographyRunOptions}).
 *
 * @example
 * ```ts
 * import { ChoreographySpec, type ExecuteChoreographyOptions } from '@rxagents/choreography';
 * import { defineAgent } from '@rxagents/core';
 *
 * const spec = ChoreographySpec.builder('ping').initialEvent('go').interaction('ping', 'a', 'b', 'go', null, 'Say ping').build();
 * const options: ExecuteChoreographyOptions = { spec, agents: { b: defineAgent('b', async () => 'ping') }, input: 'hello', timeout: 10_000 };
 * ```
 */
export type ExecuteChoreographyOptions = z.input<typeof ExecuteChoreographyOptionsSchema>;

const PromiseOptionsSchema = z.strictObject({ ...runShape, input: inputRule, run: runRule, signal: configRules.abortSignal().optional() }).superRefine(checkEngineOptions);

/**
 * Runs a spec once per subscription, each run on a fresh {@link ChoreographyEngine}: the per-request form.
 *
 * @remarks
 * The Observable is cold: every subscription validates the options, builds a new engine (so runs share
 * no state and "an engine runs once" holds per engine), runs it with `input` and emits its
 * {@link ChoreographyResult}. Unsubscribing cancels that run only. A bad option, a target with no
 * agent or an interaction that can never trigger throws `ConfigError` when `executeChoreography$` is called. With
 * `run`, each run reports itself into it as a `choreography` node (see `ChoreographyEngine.events$`);
 * for a run's events on their own, use `observeChoreography`. To watch a run's `steps$` or
 * `busEvents$`, build the engine yourself: `new ChoreographyEngine(options)`.
 *
 * @example
 * ```ts
 * import { ChoreographySpec, executeChoreography$ } from '@rxagents/choreography';
 * import { defineAgent } from '@rxagents/core';
 * import { from, mergeMap } from 'rxjs';
 *
 * const spec = ChoreographySpec.builder('summary').initialEvent('request').interaction('summarize', 'user', 'summarizer', 'request', null, 'Summarize').build();
 * const summarizer = defineAgent('summarizer', async (input) => `summary of: ${input.split('Context: ')[1]}`);
 * from(['first text', 'second text'])
 *   .pipe(mergeMap((input) => executeChoreography$({ spec, agents: { summarizer }, input })))
 *   .subscribe((result) => console.log(result.stepResults[0]?.output));
 * // summary of: first text
 * // summary of: second text
 * ```
 */
export function executeChoreography$(options: ExecuteChoreographyOptions): Observable<ChoreographyResult> {
  const { input, run, ...engineOptions } = parseConfig(ExecuteChoreographyOptionsSchema, options, 'executeChoreography options');
  return defer(() => new ChoreographyEngine(engineOptions).execute$({ input, run }));
}

/**
 * Runs a spec once on a fresh {@link ChoreographyEngine} and resolves with its result: the Promise form
 * of {@link executeChoreography$}, for one request.
 *
 * @remarks
 * Aborting `signal` cancels the run and rejects with the signal's reason. A bad option, a target with
 * no agent or an interaction that can never trigger rejects with `ConfigError` and starts nothing.
 *
 * @example
 * ```ts
 * import { ChoreographySpec, executeChoreography } from '@rxagents/choreography';
 * import { defineAgent } from '@rxagents/core';
 *
 * const spec = ChoreographySpec.builder('article')
 *   .initialEvent('request')
 *   .interaction('research', 'user', 'researcher', 'request', 'researched', 'Collect sources')
 *   .interaction('draft', 'researcher', 'writer', 'researched', null, 'Write a draft')
 *   .build();
 * const agents = {
 *   researcher: defineAgent('researcher', async (input) => `sources for ${input.split('Context: ')[1]}`),
 *   writer: defineAgent('writer', async (input) => `draft from ${input.split('Context: ')[1]}`),
 * };
 * // One spec and one set of agents, one run per request.
 * for (const topic of ['RxJS', 'agents']) {
 *   const result = await executeChoreography({ spec, agents, input: topic, timeout: 60_000 });
 *   console.log(result.stepResults.at(-1)?.output); // draft from sources for RxJS, then: draft from sources for agents
 * }
 * ```
 */
export function executeChoreography(options: ExecuteChoreographyOptions & { readonly signal?: AbortSignal }): Promise<ChoreographyResult> {
  let engine: ChoreographyEngine;
  let runOptions: ChoreographyRunOptions;
  let signal: AbortSignal | undefined;
  try {
    const { input, run, signal: parsedSignal, ...engineOptions } = parseConfig(PromiseOptionsSchema, options, 'executeChoreography options');
    engine = new ChoreographyEngine(engineOptions);
    runOptions = { input, run };
    signal = parsedSignal;
  } catch (error) {
    return Promise.reject(error);
  }
  return lastValue(engine.execute$(runOptions), signal === undefined ? {} : { signal });
}
