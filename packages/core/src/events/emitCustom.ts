import type { RunContext } from './RunContext';
import type { RunEventOf } from './RunEvent';

/**
 * Emits a `custom` event of your own into a run, under the call or node `run` belongs to.
 *
 * @remarks
 * For what only your code knows: a tool's progress, a retrieval's sources, a UI hint. `data` must be JSON
 * (it travels to browsers as is). Does nothing when `run` is `undefined`, so an agent can call it
 * unconditionally with its `ChatOptions.run`.
 *
 * @param run - The run context, usually `ChatOptions.run`.
 * @param name - Your event's name, for example `sources`.
 * @param data - Any JSON value.
 *
 * @example
 * ```ts
 * import { defineAgent, emitCustom, invoke$, observeRun } from '@rxagents/core';
 *
 * const researcher = defineAgent('researcher', async (input, { run }) => {
 *   emitCustom(run, 'sources', ['https://rxjs.dev']);
 *   return `Three facts about ${input}`;
 * });
 * observeRun('research', 'RxJS', (run) => invoke$(researcher, 'RxJS', { run })).subscribe((event) => {
 *   if (event.type === 'custom') console.log(event.name, event.data); // sources [ 'https://rxjs.dev' ]
 * });
 * ```
 */
export function emitCustom(run: RunContext | undefined, name: string, data: RunEventOf<'custom'>['data']): void {
  if (run === undefined) return;
  run.emit({ type: 'custom', runId: run.runId, callId: run.callId ?? run.runId, parentCallId: run.parentCallId, at: run.scheduler.now(), name, data });
}
