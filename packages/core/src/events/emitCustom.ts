import * as z from 'zod';
import { checkNode } from '../internal/checkNode';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../internal/jsonDepth';
import { parseConfig } from '../parseConfig';
import type { RunContext } from './RunContext';
import type { RunEventOf } from './RunEvent';

const CustomEventSchema = z.strictObject({
  name: z.string({ error: 'must be a non-empty string' }).min(1, 'must be a non-empty string'),
  data: z.custom(isJson, { error: 'must be a JSON value' }),
});

/**
 * `value` as JSON text, or `undefined` when it does not survive `JSON.stringify` as a value (`undefined`,
 * a function, a symbol, a BigInt or a cycle) or nests deeper than `RunEventSchema` accepts.
 */
function jsonText(value: unknown): string | undefined {
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) return undefined;
  try {
    const text: unknown = JSON.stringify(value);
    return typeof text === 'string' ? text : undefined;
  } catch {
    return undefined;
  }
}

function isJson(value: unknown): boolean {
  return jsonText(value) !== undefined;
}

/**
 * Emits a `custom` event of your own into a run, under the call or node `run` belongs to.
 *
 * @remarks
 * For what only your code knows: a tool's progress, a retrieval's sources, a UI hint. `data` must be JSON
 * (it travels to browsers as is). Does nothing when `run` is `undefined`, so an agent can call it
 * unconditionally with its `ChatOptions.run`. An empty `name`, or a `data` that `JSON.stringify` cannot
 * write (`undefined`, a function, a BigInt, a cycle) or that nests arrays and objects more than 100 levels
 * deep, is a `ConfigError`, with or without a run: the event would fail `RunEventSchema` wherever it is
 * read (a browser, another process). The event carries a JSON copy of `data`, as a reader on the wire
 * gets it: a `Date` becomes its string, `NaN` becomes `null`, an `undefined` field is left out, and
 * changing `data` afterwards changes nothing already emitted. A context above the run's root (`callId:
 * null`, made by hand) has no node to report under and is refused.
 *
 * @param run - The run context, usually `ChatOptions.run`.
 * @param name - Your event's name, for example `sources`.
 * @param data - Any JSON value.
 * @throws `ConfigError` when `name` is not a non-empty string, `data` is not JSON, or `run.callId` is `null`.
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
  // Written once: the check and the copy below share the text.
  const text = typeof name === 'string' && name !== '' ? jsonText(data) : undefined;
  if (text === undefined) {
    // One of the two arguments is wrong: zod words the error and throws.
    parseConfig(CustomEventSchema, { name, data }, 'emitCustom');
    return;
  }
  if (run === undefined) return;
  checkNode(run, 'emitCustom');
  // A copy as JSON: the event is what a reader on the wire gets (a Date as its string, no undefined
  // fields), and changing `data` afterwards changes no event and no view already made from it.
  const json = JSON.parse(text) as RunEventOf<'custom'>['data'];
  run.emit({ type: 'custom', runId: run.runId, callId: run.callId, parentCallId: run.parentCallId, at: run.scheduler.now(), name, data: json });
}
