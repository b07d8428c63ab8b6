import { type SchedulerLike, Subscriber, type Subscription } from 'rxjs';
import { AgentError } from '../errors/AgentError';
import { AgentTimeoutError } from '../errors/AgentTimeoutError';
import { reportUnhandledError } from '../reportUnhandledError';
import { abortError } from './abortError';
import type { CallTrace } from './CallTrace';
import { LazyAbort } from './LazyAbort';

/**
 * One agent call: whether it settled, its timer, its abort, and the observer of the agent's chunks (a
 * `Subscriber` of its own, so subscribing to the agent's reply wraps nothing; unsubscribing it stops the agent).
 */
export class Call extends Subscriber<unknown> {
  readonly controller = new LazyAbort();
  settled = false;
  timer: Subscription | undefined = undefined;

  constructor(
    private readonly subscriber: Subscriber<string>,
    private readonly agentId: string,
    readonly trace: CallTrace | undefined,
    private readonly scheduler: SchedulerLike,
    /** The timeout, when the call has one. */
    private readonly timeout: number | undefined,
    private readonly deadline: number,
  ) {
    super();
  }

  /** Whether the agent may go on producing: the call is unsettled, its caller is there and its deadline not passed. */
  goesOn(): boolean {
    return !this.settled && !this.subscriber.closed && !this.pastDeadline();
  }

  protected override _next(chunk: unknown): void {
    if (this.settled || this.controller.isAborted) return;
    if (this.pastDeadline()) this.fail(new AgentTimeoutError(this.agentId, this.timeout as number));
    else if (typeof chunk !== 'string') this.fail(new AgentError(this.agentId, new TypeError(`chat emitted a ${typeof chunk} chunk; chunks must be strings`)));
    else {
      this.trace?.delta(chunk);
      this.subscriber.next(chunk);
    }
  }

  protected override _error(error: unknown): void {
    if (!this.settled) {
      this.settle();
      const failure = error instanceof AgentError && error.agentId === this.agentId ? error : new AgentError(this.agentId, error);
      this.trace?.fail(failure);
      this.subscriber.error(failure);
    }
    this.stopAgent();
  }

  protected override _complete(): void {
    // Closed: `takeWhile` cut the agent off because the caller left; the teardown aborts it.
    if (!this.settled && !this.subscriber.closed) {
      // `takeWhile` also cuts off a synchronous agent that streamed past its deadline.
      if (this.pastDeadline()) {
        this.fail(new AgentTimeoutError(this.agentId, this.timeout as number));
      } else {
        this.settle();
        this.trace?.end();
        this.subscriber.complete();
      }
    }
    this.stopAgent();
  }

  settle(): void {
    this.settled = true;
    this.timer?.unsubscribe();
  }

  /** Ends the call with `error`: aborts the agent (a timeout is the abort's reason) and stops it. */
  fail(error: AgentError | AgentTimeoutError): void {
    this.settle();
    this.controller.abort(error instanceof AgentTimeoutError ? error : undefined);
    this.stopAgent();
    this.trace?.fail(error);
    this.subscriber.error(error);
  }

  teardown(): void {
    this.timer?.unsubscribe();
    const cancelled = !this.settled;
    if (cancelled) {
      this.settled = true;
      this.controller.abort();
    }
    this.stopAgent();
    // After the agent stopped, so what it cancelled on its way out is reported inside its call.
    if (cancelled) this.trace?.fail(abortError(`call to agent '${this.trace.agentId}' was cancelled`));
  }

  private pastDeadline(): boolean {
    return this.timeout !== undefined && this.scheduler.now() >= this.deadline;
  }

  // The agent's teardown is user code: if it throws, the caller still gets the real outcome.
  private stopAgent(): void {
    try {
      this.unsubscribe();
    } catch (error) {
      reportUnhandledError(error);
    }
  }
}
