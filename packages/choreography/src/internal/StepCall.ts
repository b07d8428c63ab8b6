import type { AgentCallResult } from '@rxagents/core';
import { Subscriber } from 'rxjs';
import type { Interaction } from '../Interaction';

/** What a running step reports to its run. */
export interface StepOwner {
  /** The step's agent call ended with `call`; the step is already out of the running list. */
  stepEnded(step: StepCall, call: AgentCallResult): void;
  /** The call errored (`callAgent` records agent failures as results, so only a fault of the call itself). */
  stepErrored(error: unknown): void;
}

/**
 * One interaction whose agent is running: the subscriber of its `callAgent` call and its node in the
 * run's list of running steps.
 *
 * @remarks
 * A `Subscriber` of its own, not a `defer` + `map` + `tap` pipeline under a `mergeMap`: the engine
 * pays one object per interaction for the step instead of five operators' subscribers. The running
 * steps form a doubly linked list in start order (`previous`/`following`), so adding and removing a
 * step is O(1) and allocates nothing, and the list is walked in start order at the timeout and when
 * the run is torn down. Not added to a parent subscription: the run unsubscribes its running steps
 * itself.
 *
 * @internal
 */
export class StepCall extends Subscriber<AgentCallResult> {
  previous: StepCall | undefined = undefined;
  following: StepCall | undefined = undefined;

  constructor(
    private readonly owner: StepOwner,
    readonly interaction: Interaction,
    readonly input: string,
    readonly startedAt: number,
  ) {
    super();
  }

  protected override _next(call: AgentCallResult): void {
    this.owner.stepEnded(this, call);
  }

  protected override _error(error: unknown): void {
    this.unsubscribe();
    this.owner.stepErrored(error);
  }

  protected override _complete(): void {
    this.unsubscribe();
  }
}
