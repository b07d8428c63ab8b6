import type { Subscriber } from 'rxjs';
import { InterruptNotFoundError } from '../../errors/InterruptNotFoundError';
import type { RunEventOf } from '../../events/RunEvent';
import { reportUnhandledError } from '../../reportUnhandledError';

/** An interrupt waiting for its answer in this process. */
export interface OpenInterrupt {
  readonly event: RunEventOf<'interrupt'>;
  /** Takes an answer: throws `InterruptAnswerError` (the interrupt stays open) or closes the interrupt with it. */
  readonly accept: (answer: unknown) => void;
}

type Watcher = Subscriber<readonly RunEventOf<'interrupt'>[]>;

/** An open interrupt, and whether it is listed yet. */
interface Slot {
  readonly entry: OpenInterrupt;
  listed: boolean;
}

/**
 * The interrupts open in this process, by run and id: where an answer finds the interrupt it names.
 *
 * @remarks
 * Keyed by `Map`s (ids are user strings), per run, so listing a run's interrupts costs what that run has
 * open. An entry lives from its `interrupt` event to its end; nothing stays behind a closed interrupt.
 *
 * An entry may open unlisted: a durable run's question, until its journal holds it. It is answered by its
 * id (only code that saw it said can know that id) but is not in `pending`, so nobody outside the process
 * learns an id that a crash before the journal has it would make unknown.
 */
export class InterruptBoard {
  readonly #runs = new Map<string, Map<string, Slot>>();
  readonly #watchers = new Map<string, Set<Watcher>>();

  /** Opens `entry`, listed in `pending` now or, with `listed` false, once {@link InterruptBoard.show} says so. */
  open(entry: OpenInterrupt, listed = true): void {
    const { runId, interruptId } = entry.event;
    let open = this.#runs.get(runId);
    if (open === undefined) this.#runs.set(runId, (open = new Map()));
    open.set(interruptId, { entry, listed });
    if (listed) this.#changed(runId);
  }

  /** Lists the open interrupt `interruptId` of `runId`, if it is open and not listed yet. */
  show(runId: string, interruptId: string): void {
    const slot = this.#runs.get(runId)?.get(interruptId);
    if (slot === undefined || slot.listed) return;
    slot.listed = true;
    this.#changed(runId);
  }

  close(entry: OpenInterrupt): void {
    const { runId, interruptId } = entry.event;
    const open = this.#runs.get(runId);
    const slot = open?.get(interruptId);
    if (open === undefined || slot?.entry !== entry) return;
    open.delete(interruptId);
    if (open.size === 0) this.#runs.delete(runId);
    if (slot.listed) this.#changed(runId);
  }

  /** Whether `runId` has the interrupt `interruptId` open here. */
  has(runId: string, interruptId: string): boolean {
    return this.#runs.get(runId)?.has(interruptId) === true;
  }

  /** The open interrupt `interruptId` of `runId`, or `InterruptNotFoundError`. */
  find(runId: string, interruptId: string): OpenInterrupt {
    const slot = this.#runs.get(runId)?.get(interruptId);
    if (slot === undefined) throw new InterruptNotFoundError(runId, interruptId);
    return slot.entry;
  }

  /** The listed interrupts of `runId`, oldest first. */
  pending(runId: string): readonly RunEventOf<'interrupt'>[] {
    const open = this.#runs.get(runId);
    if (open === undefined) return EMPTY;
    const listed: RunEventOf<'interrupt'>[] = [];
    for (const slot of open.values()) if (slot.listed) listed.push(slot.entry.event);
    return Object.freeze(listed);
  }

  watch(runId: string, watcher: Watcher): () => void {
    let watchers = this.#watchers.get(runId);
    if (watchers === undefined) this.#watchers.set(runId, (watchers = new Set()));
    watchers.add(watcher);
    watcher.next(this.pending(runId));
    return () => {
      const set = this.#watchers.get(runId);
      if (set === undefined) return;
      set.delete(watcher);
      if (set.size === 0) this.#watchers.delete(runId);
    };
  }

  #changed(runId: string): void {
    const watchers = this.#watchers.get(runId);
    if (watchers === undefined) return;
    const list = this.pending(runId);
    for (const watcher of [...watchers]) {
      try {
        watcher.next(list);
      } catch (error) {
        reportUnhandledError(error);
      }
    }
  }
}

const EMPTY: readonly RunEventOf<'interrupt'>[] = Object.freeze([]);

/** The interrupts open in this process (one board per copy of the toolkit loaded). */
export const interruptBoard = new InterruptBoard();
