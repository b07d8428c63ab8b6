// The durable run the interrupt-gap tests kill and resume: an agent that asks for approval of a charge
// and charges once approved. The killed child and the resuming process both run this same code.
import { existsSync } from 'node:fs';
import { lastValueFrom, type Observable } from 'rxjs';
import { askForApproval, defineAgent, invoke$, observeRun, type RunEvent, type RunStore } from '../../src';

/** What the run answers once the charge is approved. */
export const APPROVED_OUTPUT = 'charged 42 EUR';

/** The run: `biller` asks to approve `charge` of 42 EUR, then says what it did. */
export function approvalRun$(store: RunStore, runId: string, leaseTtlMs: number): Observable<RunEvent> {
  const biller = defineAgent('biller', async (input, { run }) => {
    const decision = await lastValueFrom(askForApproval(run, 'charge', { amount: 42, currency: 'EUR' }));
    return decision.approved ? `charged ${input}` : 'not charged';
  });
  return observeRun('bill', '42 EUR', (run) => invoke$(biller, '42 EUR', { run }), { store, runId, leaseTtlMs });
}

/**
 * `store`, whose appends that carry an `interrupt` event first call `appending` and then wait until the
 * file `gate` exists (polled): a process killed meanwhile dies between its question and its journaling.
 */
export function gateInterruptAppends<S extends RunStore>(store: S, gate: string, appending: () => void): S {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property !== 'append' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: Parameters<RunStore['append']>): Promise<void> => {
        if (args[1].some((event) => event.type === 'interrupt')) {
          appending();
          while (!existsSync(gate)) await new Promise((resolve) => setTimeout(resolve, 10));
        }
        return (value as RunStore['append']).apply(target, args);
      };
    },
  });
}
