import { asyncScheduler, type Observer, type SchedulerLike, Subscriber, type Unsubscribable } from 'rxjs';
import { fromAbortSignal, type Agent } from '@rxagents/core';
import type { HandoffChainStep } from './HandoffChainStep';
import type { HandoffContext } from '../context/HandoffContext';
import type { HandoffResult } from '../strategy/HandoffResult';
import type { HandoffExecuteOptions, HandoffSource, HandoffStrategy } from '../strategy/HandoffStrategy';
import { HandoffContractError } from '../errors/HandoffContractError';
import { evaluatePredicate } from './evaluatePredicate';
import { failedHandoff } from '../internal/failedCall';

/**
 * One run of a `HandoffChain`: a trampolined loop over the steps (constant stack however many steps
 * answer synchronously), observer of each step's result, and its own teardown. Methods rather than
 * per-step closures keep a hop's allocations low (`pnpm bench handoff`). The loop is not core's
 * `unfoldSteps`: that costs a step Observable, a `takeUntil` and `Unfolded` wrappers per hop, and measured
 * `hopRatio` about 4 against about 2.5 for this loop.
 */
export class ChainRun implements Observer<HandoffResult>, Unsubscribable {
  private from: HandoffSource;
  private current: HandoffContext;
  private index: number;
  private active: Unsubscribable | undefined;
  private pumping = false;
  private pending = false;
  private running: Agent | undefined;
  /** When the current step began (before its predicate): a step that fails before its agent answers is measured from here. */
  private stepStart = 0;
  private readonly scheduler: SchedulerLike;

  constructor(
    private readonly subscriber: Subscriber<HandoffResult>,
    private readonly steps: readonly HandoffChainStep[],
    private readonly handoff: HandoffStrategy,
    context: HandoffContext,
    private readonly options: HandoffExecuteOptions | undefined,
    from: HandoffSource,
    firstStep: number,
  ) {
    this.from = from;
    this.index = firstStep;
    this.current = context;
    this.scheduler = options?.scheduler ?? asyncScheduler;
  }

  /** Runs the next step, unless one is already being run further up the stack (then the loop picks it up). */
  pump(): void {
    this.pending = true;
    if (this.pumping) return;
    this.pumping = true;
    while (this.pending && !this.subscriber.closed) {
      this.pending = false;
      this.step();
    }
    this.pumping = false;
  }

  next(result: HandoffResult): void {
    this.subscriber.next(result);
    if (!result.success) {
      this.subscriber.complete();
      return;
    }
    this.from = this.running as Agent;
    this.current = this.current.withPreviousOutput(result.output);
    this.pump();
  }

  error(error: unknown): void {
    this.subscriber.error(error);
  }

  complete(): void {
    // A strategy emits one result and completes; the next step starts from `next`.
  }

  unsubscribe(): void {
    this.active?.unsubscribe();
  }

  private step(): void {
    const { steps } = this;
    if (this.index >= steps.length) {
      this.subscriber.complete();
      return;
    }
    const step = steps[this.index++] as HandoffChainStep;
    this.stepStart = this.scheduler.now();
    const signal = this.options?.signal;
    if (signal?.aborted) {
      this.fail(step.agent, signal.reason);
      return;
    }
    if (step.predicate === undefined) {
      this.run(step.agent);
      return;
    }
    let answered = false;
    let detach: (() => void) | undefined;
    const pending = evaluatePredicate(
      step.predicate,
      this.current,
      `the predicate of step "${step.agent.id}"`,
      (answer) => {
        answered = true;
        detach?.();
        if (answer) this.run(step.agent);
        else this.pump();
      },
      (error) => {
        answered = true;
        detach?.();
        this.fail(step.agent, error);
      },
    );
    // A predicate that answered at once has already started the step (and set `active` to its teardown).
    if (answered) return;
    this.active = pending;
    if (signal === undefined) return;
    // No agent runs while the predicate is pending, so the chain itself must hear an abort.
    const abort = fromAbortSignal(signal).subscribe((reason) => {
      pending?.unsubscribe();
      this.fail(step.agent, reason);
    });
    detach = () => abort.unsubscribe();
    this.active = {
      unsubscribe: () => {
        abort.unsubscribe();
        pending?.unsubscribe();
      },
    };
  }

  private fail(agent: Agent, error: unknown): void {
    const start = this.stepStart;
    this.subscriber.next(failedHandoff(this.from.id, agent.id, this.current, error, start, this.scheduler.now() - start));
    this.subscriber.complete();
  }

  private run(agent: Agent): void {
    this.running = agent;
    // Any strategy, the shipped one included, through its public contract; whatever it does (throw, error,
    // complete empty, emit twice), the step gets one result.
    const step = new StepObserver(this, agent);
    try {
      this.active = this.handoff.execute$(this.from, agent, this.current, this.options).subscribe(step);
    } catch (error) {
      step.error(error);
    }
  }

  /** Ends the run with a failure of `agent`'s step (used by a misbehaving strategy's step). */
  failStep(agent: Agent, error: unknown): void {
    this.fail(agent, error);
  }
}

/**
 * Observes one step's strategy, holding it to the contract: one result. A `Subscriber` of its own, so
 * `subscribe` takes it as it is instead of wrapping it (one allocation less per hop).
 *
 * The same in a run: waiting for the strategy to complete would hang the chain on a strategy that gives its
 * result and stays subscribed, and a strategy that reports its node with `traceResult` gives its result
 * after that node's `run-end`, so stopping it at its result cuts nothing short.
 */
class StepObserver extends Subscriber<HandoffResult> {
  private settled = false;

  constructor(
    private readonly run: ChainRun,
    private readonly agent: Agent,
  ) {
    super();
  }

  protected override _next(result: HandoffResult): void {
    if (this.settled) return;
    this.settled = true;
    // One result is all a step gives: a strategy that stays subscribed after it is stopped here, not left running.
    this.unsubscribe();
    this.run.next(result);
  }

  protected override _error(error: unknown): void {
    this.unsubscribe();
    if (this.settled) return;
    this.settled = true;
    this.run.failStep(this.agent, error);
  }

  protected override _complete(): void {
    this.unsubscribe();
    if (this.settled) return;
    this.settled = true;
    this.run.failStep(this.agent, new HandoffContractError(`the strategy handing off to "${this.agent.id}"`, 'completed without a result', undefined));
  }
}
