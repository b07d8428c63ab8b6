import * as z from 'zod';
import * as configRules from '../configRules';
import { InterruptAnswerError } from '../errors/InterruptAnswerError';
import { InterruptNotFoundError } from '../errors/InterruptNotFoundError';
import type { RunEventOf } from '../events/RunEvent';
import { answerAsJson } from '../internal/interrupts/answerAsJson';
import { interruptBoard, type OpenInterrupt } from '../internal/interrupts/InterruptBoard';
import type { ReadAnswer } from '../internal/interrupts/interrupt';
import { MAX_TEXT_FIELD_LENGTH } from '../limits';
import { parseConfig } from '../parseConfig';
import { readWithSchema } from './readWithSchema';

/** An answer as it is delivered: its JSON copy. */
type RelayedAnswer = Exclude<RunEventOf<'interrupt-end'>['answer'], undefined>;

const idRule = () => z.string({ error: 'must be a non-empty string' }).min(1, 'must be a non-empty string');
const RelaySchema = z.object({
  event: z.object({ type: z.literal('interrupt', { error: "must be an 'interrupt' run event" }), runId: idRule(), interruptId: idRule() }, { error: "must be an 'interrupt' run event" }),
  deliver: configRules.function<(answer: RelayedAnswer) => void>(),
});

/**
 * Opens an interrupt asked in another process on this process's board, so that it is answered here:
 * {@link answerInterrupt}, {@link pendingInterrupts} and a run registry's answer route find it, and a
 * good answer goes to `deliver`, which carries it to the process that asked.
 *
 * @remarks
 * For packages that run agents elsewhere and forward their run events (as `@rxagents/redis`'s
 * `remoteAgent` does): call it with each forwarded `interrupt` event, and call the function it returns
 * once the interrupt is over there (its `interrupt-end`, or the call ended, was cancelled or lost its
 * worker), so no stale question stays listed.
 *
 * An answer is checked as the asker checks it, against the event's JSON Schema (read back with zod's
 * `z.fromJSONSchema`): one that does not fit throws `InterruptAnswerError` to whoever answered and the
 * interrupt stays open. A schema zod cannot read back (an unresolvable `$ref`) is not checked here; the
 * asker's check, with its real zod schema, stays the one that decides. A good answer closes the relayed
 * interrupt here (a second answer gets `InterruptNotFoundError`) and is passed to `deliver` as JSON; when
 * `deliver` throws, the interrupt stays open and the error goes to whoever answered.
 *
 * An interrupt already open in this process (asked here, or relayed already) is not opened twice: the
 * open one answers, and the function returned does nothing.
 *
 * @param event - The `interrupt` event, as the process that asked emitted it.
 * @param deliver - Carries a good answer (a JSON value) to the process that asked.
 * @returns Closes the relayed interrupt (at most once; later calls do nothing).
 * @throws `ConfigError` when `event` is not an `interrupt` event or `deliver` not a function.
 *
 * @example
 * ```ts
 * import { z } from 'zod';
 * import { answerInterrupt, InterruptAnswerError, pendingInterrupts, relayInterrupt, type RunEventOf } from '@rxagents/core';
 *
 * const asked: RunEventOf<'interrupt'> = {
 *   type: 'interrupt', runId: 'trip-1', callId: 'ask-1', parentCallId: 'call-1', at: 0,
 *   interruptId: 'q-1', kind: 'input', question: 'How many days?', schema: z.toJSONSchema(z.number().int().min(1)) as RunEventOf<'interrupt'>['schema'],
 * };
 * const close = relayInterrupt(asked, (answer) => console.log('to the worker:', answer));
 * try {
 *   answerInterrupt('trip-1', 'q-1', 0);
 * } catch (error) {
 *   console.log(error instanceof InterruptAnswerError, pendingInterrupts('trip-1').length); // true 1
 * }
 * answerInterrupt('trip-1', 'q-1', 3); // to the worker: 3
 * console.log(pendingInterrupts('trip-1').length); // 0
 * close();
 * ```
 *
 * @see {@link answerInterrupt}
 */
export function relayInterrupt(event: RunEventOf<'interrupt'>, deliver: (answer: RelayedAnswer) => void): () => void {
  parseConfig(RelaySchema, { event, deliver }, 'relayInterrupt');
  const { runId, interruptId } = event;
  if (interruptBoard.has(runId, interruptId)) return () => undefined;
  const read = readerOf(event.schema);
  let closed = false;
  const entry: OpenInterrupt = {
    event,
    accept: (answer) => {
      if (closed) throw new InterruptNotFoundError(runId, interruptId);
      const json = answerAsJson(answer);
      if (json === undefined) throw new InterruptAnswerError(runId, interruptId, [{ path: '', rule: `must be a JSON value of at most ${MAX_TEXT_FIELD_LENGTH} characters` }]);
      const checked = read?.(json.value);
      if (checked !== undefined && !('value' in checked)) throw new InterruptAnswerError(runId, interruptId, checked.issues);
      deliver(json.value as RelayedAnswer);
      close();
    },
  };
  const close = (): void => {
    if (closed) return;
    closed = true;
    interruptBoard.close(entry);
  };
  interruptBoard.open(entry);
  return close;
}

/** The check of an answer against `schema` read back as zod; `undefined` when zod cannot read it. */
function readerOf(schema: RunEventOf<'interrupt'>['schema']): ReadAnswer<unknown> | undefined {
  try {
    return readWithSchema(z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]));
  } catch {
    return undefined;
  }
}
