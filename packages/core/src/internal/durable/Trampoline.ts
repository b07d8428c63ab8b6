import { reportUnhandledError } from '../../reportUnhandledError';

/**
 * Runs tasks one after another on one stack: a task started while another runs waits for it, so a chain
 * of replayed calls (each one starting the next as it completes) runs in a loop instead of recursing.
 */
export class Trampoline {
  #tasks: ((() => void) | undefined)[] = [];
  #next = 0;
  #running = false;

  run(task: () => void): void {
    this.#tasks.push(task);
    if (this.#running) return;
    this.#running = true;
    try {
      while (this.#next < this.#tasks.length) {
        const current = this.#tasks[this.#next] as () => void;
        this.#tasks[this.#next++] = undefined;
        try {
          current();
        } catch (error) {
          reportUnhandledError(error);
        }
      }
    } finally {
      this.#tasks = [];
      this.#next = 0;
      this.#running = false;
    }
  }
}
