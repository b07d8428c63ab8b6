import type { SchedulerLike, Subscription } from 'rxjs';
import { scheduleDelay } from '../../delay';
import { reportUnhandledError } from '../../reportUnhandledError';

/**
 * Hands replayed calls their recorded outcomes in the order the journal recorded those outcomes, on one
 * stack.
 *
 * @remarks
 * A resumed run's code runs again, and its calls whose outcome the journal holds are answered from it. If
 * each answered at once, inside the call that makes it, code that makes several calls in a row (a fan-out,
 * speakers answering at once, a choreography publishing to two branches) would see an answer before it made
 * its next call, a state the recorded run never had; and calls that ended out of start order would end in
 * start order. So an answer waits until the job that made its call is over (a microtask), and until every
 * outcome the journal recorded before it was handed out: the code then sees the outcomes in the recorded
 * order, and makes the same calls in the same order, as the recorded run did.
 *
 * Answers given in a loop (each one may make the next call, which may be answered next) run one after
 * another on one stack, so a chain of 30,000 replayed calls does not recurse.
 *
 * `order` is an outcome's position among the outcomes the gate orders; `undefined` for an outcome outside
 * that order (a call under a call that runs again, whose new attempt may make its calls differently): it
 * is handed out as soon as the job that made its call is over. When the outcome next in order is not
 * asked for within `stuckAfterMs` while later ones wait, `onStuck` hears its position: the resumed code
 * no longer makes that call.
 *
 * @internal
 */
export class ReplayGate {
  readonly #held = new Map<number, () => void>();
  #unordered: (() => void)[] = [];
  #nextUnordered = 0;
  #cursor = 0;
  #scheduled = false;
  #running = false;
  #closed = false;
  #watch: Subscription | undefined = undefined;
  #watchedAt = -1;

  constructor(
    private readonly scheduler: SchedulerLike,
    private readonly stuckAfterMs: number,
    private readonly onStuck: (order: number) => void,
  ) {}

  /** Hands out `task` (a call's recorded outcome) at its turn. */
  release(order: number | undefined, task: () => void): void {
    if (this.#closed) return;
    if (order === undefined) this.#unordered.push(task);
    else this.#held.set(order, task);
    if (this.#running || this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(this.#drain);
  }

  /** Nothing more is handed out. */
  close(): void {
    this.#closed = true;
    this.#held.clear();
    this.#unordered = [];
    this.#watch?.unsubscribe();
  }

  readonly #drain = (): void => {
    this.#scheduled = false;
    if (this.#closed) return;
    this.#running = true;
    try {
      for (;;) {
        if (this.#closed) return;
        let task: (() => void) | undefined;
        if (this.#nextUnordered < this.#unordered.length) {
          task = this.#unordered[this.#nextUnordered];
          this.#unordered[this.#nextUnordered++] = undefined as never;
        } else {
          task = this.#held.get(this.#cursor);
          if (task === undefined) break;
          this.#held.delete(this.#cursor++);
        }
        try {
          (task as () => void)();
        } catch (error) {
          reportUnhandledError(error);
        }
      }
      this.#unordered = [];
      this.#nextUnordered = 0;
    } finally {
      this.#running = false;
    }
    this.#watchStuck();
  };

  // Later outcomes wait for one nobody asked for yet: give the code `stuckAfterMs` to ask for it.
  #watchStuck(): void {
    if (this.#held.size === 0) {
      this.#watch?.unsubscribe();
      this.#watch = undefined;
      return;
    }
    if (this.#watch !== undefined && this.#watchedAt === this.#cursor) return;
    this.#watch?.unsubscribe();
    this.#watchedAt = this.#cursor;
    this.#watch = scheduleDelay(this.scheduler, this.stuckAfterMs, () => {
      this.#watch = undefined;
      if (!this.#closed && this.#watchedAt === this.#cursor && this.#held.size > 0) this.onStuck(this.#cursor);
    });
  }
}
