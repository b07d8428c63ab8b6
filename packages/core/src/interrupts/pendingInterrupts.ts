import { Observable } from 'rxjs';
import * as z from 'zod';
import type { RunEventOf } from '../events/RunEvent';
import { interruptBoard } from '../internal/interrupts/InterruptBoard';
import { parseConfig } from '../parseConfig';

const RunIdSchema = z.string({ error: 'must be a non-empty string' }).min(1, 'must be a non-empty string');

/**
 * The interrupts of a run open in this process right now, oldest first: their `interrupt` events.
 *
 * @remarks
 * A durable run's question is listed once its journal holds it (as its event reaches the run's reader),
 * so an id listed here is one a resumed run asks under again after a crash.
 *
 * @param runId - The run.
 * @returns A frozen list (empty when none is open).
 * @throws `ConfigError` when `runId` is not a non-empty string.
 *
 * @example
 * ```ts
 * import { pendingInterrupts } from '@rxagents/core';
 *
 * console.log(pendingInterrupts('run-1').length); // 0
 * ```
 */
export function pendingInterrupts(runId: string): readonly RunEventOf<'interrupt'>[] {
  return interruptBoard.pending(parseConfig(RunIdSchema, runId, 'pendingInterrupts runId'));
}

/**
 * The interrupts of a run open in this process: the current list on subscription, then the new list
 * after every change. Never completes.
 *
 * @remarks
 * A durable run's question joins the list once its journal holds it (see {@link pendingInterrupts}).
 *
 * @param runId - The run.
 * @returns The lists, each frozen, oldest interrupt first.
 * @throws `ConfigError` when `runId` is not a non-empty string.
 *
 * @example
 * ```ts
 * import { pendingInterrupts$ } from '@rxagents/core';
 *
 * const watch = pendingInterrupts$('run-1').subscribe((open) => console.log(`${open.length} open`)); // 0 open
 * watch.unsubscribe();
 * ```
 */
export function pendingInterrupts$(runId: string): Observable<readonly RunEventOf<'interrupt'>[]> {
  const id = parseConfig(RunIdSchema, runId, 'pendingInterrupts$ runId');
  return new Observable((subscriber) => interruptBoard.watch(id, subscriber));
}
