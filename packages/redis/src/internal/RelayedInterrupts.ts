import { relayInterrupt, type RunEvent, type RunEventOf } from '@rxagents/core';
import { z } from 'zod';

/** The `custom` event a worker says when the asker refused an answer relayed to it: the interrupt is open again. */
export const ANSWER_REFUSED = 'interrupt-answer-refused';

const RefusedSchema = z.object({ interruptId: z.string().min(1) });

type Answer = Parameters<Parameters<typeof relayInterrupt>[1]>[0];

/**
 * The interrupts a remote call's worker asked, open on this process's board while they are open there
 * (see `relayInterrupt`): from their forwarded `interrupt` event to their `interrupt-end`, or until the
 * call ends, is cancelled or its attempt is given up ({@link RelayedInterrupts.closeAll}).
 *
 * An answer taken here goes to `send`; when sending fails, or the worker's asker refuses it (its
 * {@link ANSWER_REFUSED} event), the interrupt is open here again, so the person can answer once more.
 */
export class RelayedInterrupts {
  /** By interrupt id (a string the worker chose: a `Map`, never an object's keys). */
  readonly #open = new Map<string, { readonly event: RunEventOf<'interrupt'>; readonly close: () => void }>();

  constructor(private readonly send: (interruptId: string, answer: Answer) => Promise<unknown>) {}

  /** Notes a forwarded event of the call's run, before the run's readers get it (a reader may answer at once). */
  note(event: RunEvent): void {
    if (event.type === 'interrupt') this.#relay(event);
    else if (event.type === 'interrupt-end') this.#end(event.interruptId);
    else if (event.type === 'custom' && event.name === ANSWER_REFUSED) {
      const refused = RefusedSchema.safeParse(event.data);
      const open = refused.success ? this.#open.get(refused.data.interruptId) : undefined;
      if (open !== undefined) this.#relay(open.event);
    }
  }

  /** Closes every relayed interrupt of the call: it ended, was cancelled, or its attempt was given up. */
  closeAll(): void {
    for (const { close } of this.#open.values()) close();
    this.#open.clear();
  }

  #relay(event: RunEventOf<'interrupt'>): void {
    const { interruptId } = event;
    this.#open.get(interruptId)?.close();
    const close = relayInterrupt(event, (answer) => {
      this.send(interruptId, answer).catch(() => {
        const open = this.#open.get(interruptId);
        if (open !== undefined) this.#relay(open.event);
      });
    });
    this.#open.set(interruptId, { event, close });
  }

  #end(interruptId: string): void {
    this.#open.get(interruptId)?.close();
    this.#open.delete(interruptId);
  }
}
