/**
 * A minimal thenable a consumer releases by hand: the handler result of pacing subscribers
 * (`for await`, `ReadableStream`).
 *
 * @remarks
 * Unlike a Promise it calls its callback synchronously on {@link Ack.release}, so pacing costs no
 * microtask; the channel's dispatcher is trampolined, so that never grows the stack.
 *
 * @internal
 */
export class Ack implements PromiseLike<void> {
  #callback: (() => void) | undefined;
  #released = false;

  then<R1 = void, R2 = never>(onFulfilled?: ((value: void) => R1 | PromiseLike<R1>) | null): PromiseLike<R1 | R2> {
    if (this.#released) onFulfilled?.();
    else this.#callback = onFulfilled === null || onFulfilled === undefined ? undefined : () => void onFulfilled();
    return this as unknown as PromiseLike<R1 | R2>;
  }

  /** Calls `callback` once released (at once if already released); the dispatcher's fast path. */
  whenReleased(callback: () => void): void {
    if (this.#released) callback();
    else this.#callback = callback;
  }

  /** Lets the dispatcher go on. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    const callback = this.#callback;
    this.#callback = undefined;
    callback?.();
  }
}
