import type { Observable } from 'rxjs';
import * as z from 'zod';
import * as configRules from '../configRules';
import type { RunContext } from '../events/RunContext';
import { checkAsker } from '../internal/interrupts/checkAsker';
import { interrupt } from '../internal/interrupts/interrupt';
import { parseConfig } from '../parseConfig';
import { jsonSchemaOf, readWithSchema } from './readWithSchema';

/**
 * Options of {@link askForInput}.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import type { AskForInputOptions } from '@rxagents/core';
 *
 * const options: AskForInputOptions<z.ZodNumber> = { schema: z.number().int().min(1), timeout: 86_400_000 };
 * console.log(options.timeout); // 86400000
 * ```
 */
export interface AskForInputOptions<S extends z.ZodType = z.ZodString> {
  /** What an answer must be: a zod schema that JSON Schema can describe (its JSON Schema travels in the event). Default `z.string()`. */
  readonly schema?: S;
  /**
   * How long to wait for an answer, in ms on the run's scheduler, before the wait fails with
   * `InterruptTimeoutError`; `Infinity` (the default) waits for ever.
   */
  readonly timeout?: number;
}

const AskForInputSchema = z.strictObject({
  question: z.string({ error: 'must be a string' }),
  options: z.strictObject(
    {
      schema: z.custom<z.ZodType>((value) => value instanceof z.ZodType, { error: 'must be a zod schema' }).optional(),
      timeout: configRules.timeoutMs().optional(),
    },
    { error: 'must be an object' },
  ),
});

/**
 * Asks a person for input from inside a run, and waits for the answer: an interrupt.
 *
 * @remarks
 * A cold Observable: each subscription asks once. The run says so with an `interrupt` event (`kind:
 * 'input'`, the `question`, the answer's JSON Schema and a fresh unguessable `interruptId`), and the
 * interrupt is open in this process until an answer comes through {@link answerInterrupt} (or a run
 * registry's answer route). An answer is checked against `schema`: one that does not fit is an
 * `InterruptAnswerError` to whoever answered, and the interrupt keeps waiting. A good one closes it
 * (`interrupt-end` with the answer) and is emitted, parsed by the schema, then the Observable completes.
 *
 * Call it with the context your code was given: an agent's `ChatOptions.run`, or the context a run's
 * body gets. In a durable run (one started with a store) the question is journaled: when the process
 * stops and the run is resumed, the same question at the same place is open again under the same
 * `interruptId`, so the person can answer it tomorrow, after a deploy, from another device; an
 * answered one is answered from the journal without asking again.
 *
 * Unsubscribing closes the interrupt (`interrupt-end` with an `AbortError`): a later answer gets
 * `InterruptNotFoundError`. A `timeout` closes it with `InterruptTimeoutError`.
 *
 * @param run - The run context to ask in (an agent's `ChatOptions.run`).
 * @param question - What the person is asked.
 * @param options - The answer's schema and a timeout.
 * @returns The answer, parsed by the schema, then completion.
 * @throws `ConfigError` at once when `run` is missing or not a node's run context, `question` is not a string, or an
 *   option is invalid (a schema JSON Schema cannot describe, a bad timeout).
 *
 * @example
 * ```ts
 * import { lastValueFrom } from 'rxjs';
 * import { z } from 'zod';
 * import { answerInterrupt, askForInput, defineAgent, invoke$, observeRun } from '@rxagents/core';
 *
 * const planner = defineAgent('planner', async (input, { run }) => {
 *   const days = await lastValueFrom(askForInput(run, `How many days for ${input}?`, { schema: z.number().int().min(1) }));
 *   return `A ${days}-day plan for ${input}`;
 * });
 * observeRun('trip', 'Lisbon', (run) => invoke$(planner, 'Lisbon', { run })).subscribe((event) => {
 *   if (event.type === 'interrupt') answerInterrupt(event.runId, event.interruptId, 3);
 *   if (event.type === 'run-end' && event.parentCallId === null) console.log(event.output); // A 3-day plan for Lisbon
 * });
 * ```
 */
export function askForInput<S extends z.ZodType = z.ZodString>(run: RunContext | undefined, question: string, options: AskForInputOptions<S> = {}): Observable<z.output<S>> {
  checkAsker(run, 'askForInput');
  const { schema = z.string() as z.ZodType, timeout } = parseConfig(AskForInputSchema, { question, options }, 'askForInput').options;
  const request = { kind: 'input' as const, question, schema: jsonSchemaOf(schema, 'askForInput') };
  return interrupt(run, request, readWithSchema(schema as z.ZodType<z.output<S>>), timeout === undefined || timeout === Infinity ? undefined : { ms: timeout, answer: undefined });
}
