/**
 * An abort controller that creates its `AbortController` only when the signal is first read.
 *
 * Most fast agents never look at their signal, and `new AbortController()` is the largest fixed cost
 * of an agent call; an abort before the first read is remembered, so a late reader still gets a signal
 * that is already aborted, with the same reason.
 */
export class LazyAbort {
  private controller: AbortController | undefined;
  private aborted = false;
  private reason: unknown;

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  get isAborted(): boolean {
    return this.aborted;
  }

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}
