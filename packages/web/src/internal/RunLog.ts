import type { Subscription } from 'rxjs';
import { ReplayGapError } from '../errors/ReplayGapError';

/** How a run in a registry ended, once it did. */
type Ending = { readonly kind: 'complete' } | { readonly kind: 'error'; readonly error: unknown };

/**
 * The encoded frames of one run, the latest `replayLimit` of them kept, read by any number of viewers,
 * each with its own cursor (so a slow viewer costs nothing beyond the shared log).
 */
export class RunLog {
  private frames: string[] = [];
  /** Index in `frames` of the oldest kept frame. */
  private head = 0;
  /** The id of the oldest kept frame. */
  private oldest = 0;
  /** The id the next frame gets. */
  next = 0;
  ending: Ending | undefined;
  subscription: Subscription | undefined;
  expiry: Subscription | undefined;
  private readonly waiting = new Set<() => void>();

  constructor(private readonly replayLimit: number) {}

  append(frame: string): void {
    this.frames.push(frame);
    this.next++;
    if (this.frames.length - this.head > this.replayLimit) {
      this.frames[this.head] = '';
      this.head++;
      this.oldest++;
      if (this.head >= this.replayLimit) {
        this.frames = this.frames.slice(this.head);
        this.head = 0;
      }
    }
    this.wake();
  }

  end(ending: Ending): void {
    if (this.ending !== undefined) return;
    this.ending = ending;
    this.wake();
  }

  /**
   * The frames from id `from` on (at least one), `undefined` when the run ended and all were read;
   * rejects with a {@link ReplayGapError} when `from` is no longer kept, and with the run's error after
   * its last frame.
   */
  async read(from: number, signal: { cancelled: boolean }): Promise<{ text: string; next: number } | undefined> {
    while (from >= this.next) {
      if (this.ending?.kind === 'error') throw this.ending.error;
      if (this.ending !== undefined || signal.cancelled) return undefined;
      await new Promise<void>((resolve) => this.waiting.add(resolve));
    }
    if (from < this.oldest) throw new ReplayGapError(from, this.oldest);
    const start = this.head + (from - this.oldest);
    return { text: this.frames.slice(start).join(''), next: this.next };
  }

  /** Wakes every waiting reader (each checks again whether it has something to do). */
  wake(): void {
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const resolve of waiting) resolve();
  }
}
