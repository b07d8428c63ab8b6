import { Observable, Subscriber, Subscription } from 'rxjs';
import { type AgentCallOptions, type AgentCallResult, AgentTimeoutError, callAgent, preview, type RunContext } from '@rxagents/core';
import type { AgentRef } from '../agents/AgentRef';
import type { AgentFailure, AgentResult } from './AgentResult';
import { AppendLog } from '../conversation/AppendLog';
import { dispatchAgents } from './dispatchAgents';
import { decideNow } from '../termination/evaluateTermination';
import type { ExecutionModel } from './ExecutionModel';
import type { ExecutionResult } from './ExecutionResult';
import { emitMessage, emitRoundEnd, emitTermination } from './patternEvents';
import { resultOf } from './resultOf';
import { decideBeforeDeadline, overallDeadline, passedDeadline, type RunDeadline } from './RunDeadline';
import type { TerminationDecision } from '../termination/TerminationDecision';

type Stop = Exclude<TerminationDecision, { type: 'continue' }>;

/** Where the loop stands: the next thing {@link DriverLoop.step} does. */
type Phase = 'iterate' | 'call' | 'check' | 'waiting' | 'done';

/**
 * One run of the orchestrated driver: route, dispatch, aggregate, check termination, as one loop.
 *
 * @remarks
 * A hand-written state machine rather than an Observable per step: a debate turn is one agent call, and
 * building `concat`/`defer`/`map` chains, a termination Observable and a snapshot per turn cost more than
 * the call (`pnpm bench patterns`, `debateOverHand`). Work that finishes synchronously (an instant agent,
 * a condition that decides at once) continues in the `while` loop of {@link DriverLoop.advance}, so the
 * run stays in constant stack; work that answers later resumes the loop from its callback. Agents are
 * called one after another by the loop itself when the model calls one at a time without an overall
 * deadline; otherwise a batch goes through {@link dispatchAgents}. Unsubscribing the loop (it is added
 * to the run's subscriber) unsubscribes whatever is in flight, even while it is being subscribed.
 * With `snapshots` false, no `running` snapshot is built (`execute$()` reads the final result only).
 */
export class DriverLoop<T> extends Subscription {
  private readonly startedAt: number;
  private readonly overall: RunDeadline | undefined;
  private readonly callOptions: AgentCallOptions;
  /** One at a time and no overall deadline: the loop calls the agents itself. */
  private readonly callsItself: boolean;
  private state: T;
  private results = AppendLog.empty<AgentResult>();
  private phase: Phase = 'iterate';
  private iteration = 0;
  private routed: readonly AgentRef[] = [];
  private callIndex = 0;
  private received = 0;
  private failure: AgentFailure | undefined = undefined;
  /** The call, batch or decision in flight. */
  private current: Subscription | undefined = undefined;
  private looping = false;

  constructor(
    private readonly model: ExecutionModel<T>,
    input: string,
    private readonly run: RunContext | undefined,
    private readonly snapshots: boolean,
    private readonly subscriber: Subscriber<ExecutionResult<T>>,
  ) {
    super();
    const { scheduler, agentTimeout } = model;
    this.startedAt = scheduler.now();
    this.overall = overallDeadline(model.timeout, this.startedAt);
    this.callOptions = { scheduler, ...(agentTimeout === undefined ? {} : { timeout: agentTimeout }), ...(run === undefined ? {} : { run }) };
    this.callsItself = model.concurrency === 1 && this.overall === undefined;
    this.state = model.initialState(input);
    this.add(() => this.current?.unsubscribe());
  }

  /** Runs steps until the run ends or waits for something that answers later. */
  advance(): void {
    if (this.looping) return;
    this.looping = true;
    try {
      while (!this.closed && this.phase !== 'waiting' && this.phase !== 'done') this.step();
    } catch (error: unknown) {
      // User code (route, prompt, aggregate, output, a condition) threw: the run errors.
      this.subscriber.error(error);
    }
    this.looping = false;
  }

  /** Resumes the loop from a callback, reporting what user code throws there as the run's error. */
  resume(phase: Phase): void {
    this.phase = phase;
    this.advance();
  }

  /** Ends the run with `error` (what user code threw in a callback, or a call's own error). */
  fail(error: unknown): void {
    this.phase = 'done';
    this.subscriber.error(error);
  }

  private step(): void {
    if (this.phase === 'iterate') this.iterate();
    else if (this.phase === 'call') this.callNext();
    else this.check();
  }

  private iterate(): void {
    const { model, iteration } = this;
    const routed = model.route(this.state, iteration);
    if (!Array.isArray(routed)) throw new TypeError(`${model.pattern}: route gave ${String(routed)} at iteration ${iteration}; return the agents to call ([] to end the run)`);
    // An id instead of its agent would be "called" and recorded as a failure of agent `undefined`.
    const stranger = routed.findIndex((ref: unknown) => typeof (ref as Partial<AgentRef> | null | undefined)?.chat !== 'function');
    if (stranger >= 0) throw new TypeError(`${model.pattern}: route gave ${preview(routed[stranger])} at iteration ${iteration}; return the agents to call (AgentRefs, not their ids)`);
    if (routed.length === 0) {
      this.stop(iteration, { type: 'complete', reason: 'no agent left to route' });
      return;
    }
    this.routed = routed;
    this.received = 0;
    this.failure = undefined;
    if (this.callsItself) {
      this.callIndex = 0;
      this.phase = 'call';
      return;
    }
    const { pattern, concurrency, agentTimeout, failOnAgentError, scheduler } = model;
    const batch$ = dispatchAgents(routed, (ref) => model.prompt(this.state, ref, iteration), {
      pattern,
      concurrency,
      agentTimeout,
      overall: this.overall,
      failFast: failOnAgentError,
      scheduler,
      run: this.run,
    });
    this.phase = 'waiting';
    this.watch(batch$, new ResultObserver<T, AgentResult>(this, (result) => result, 'check'));
  }

  /** Calls the next routed agent, or moves on to the termination check when none is left or one failed. */
  private callNext(): void {
    const { model, routed } = this;
    // `failure` is only set when the model fails on an agent's error: the rest of the iteration is not called.
    if (this.callIndex >= routed.length || this.failure !== undefined) {
      this.phase = 'check';
      return;
    }
    const ref = routed[this.callIndex] as AgentRef;
    this.callIndex += 1;
    const prompt: unknown = model.prompt(this.state, ref, this.iteration);
    // A bug in the pattern's prompt, not the agent's failure: it ends the run rather than being recorded.
    if (typeof prompt !== 'string') throw new TypeError(`${model.pattern}: the prompt for ${JSON.stringify(ref.id)} gave ${String(prompt)}; return the text to send`);
    this.phase = 'waiting';
    this.watch(callAgent(ref, prompt, this.callOptions), new ResultObserver(this, callResult, 'call'));
  }

  /** Subscribes `observer` to `source` as the work in flight; stopped with the run, even during `subscribe`. */
  private watch<V>(source: Observable<V>, observer: Subscriber<V>): void {
    // Set before subscribing: the run's teardown reaches a call that ends the run while it is being subscribed.
    this.current = observer;
    source.subscribe(observer);
  }

  /** One agent's result: folded into the state, reported, and (unless it ends the run) a snapshot. */
  receive(result: AgentResult): void {
    const { model, run } = this;
    this.state = model.aggregate(this.state, result);
    this.results = this.results.append(result);
    this.received += 1;
    if (run !== undefined && result.success) emitMessage(run, result.agentId, result.output);
    // A failure that ends the run shows in the final result only, as over a channel.
    if (!result.success && model.failOnAgentError) {
      this.failure ??= result;
      return;
    }
    // The snapshot of an iteration's last result already counts the iteration as completed.
    if (this.snapshots) this.subscriber.next(this.resultOf(this.received === this.routed.length ? this.iteration + 1 : this.iteration));
  }

  private check(): void {
    const { model, run, failure, overall } = this;
    // An iteration in which an agent failed (and the model fails on it) is not a completed one.
    const completed = failure === undefined ? this.iteration + 1 : this.iteration;
    if (failure !== undefined) {
      this.stop(completed, { type: 'failed', reason: `agent ${failure.agentId} failed`, error: failure.error });
      return;
    }
    if (run !== undefined) emitRoundEnd(run, completed);
    const { scheduler } = model;
    const elapsedMs = scheduler.now() - this.startedAt;
    const decision = decideNow(model.termination, run === undefined ? { state: this.state, iteration: completed, elapsedMs } : { state: this.state, iteration: completed, elapsedMs, run });
    this.iteration = completed;
    if (!(decision instanceof Observable)) {
      this.decide(decision);
      return;
    }
    this.phase = 'waiting';
    this.watch(decideBeforeDeadline(decision, overall, scheduler, model.pattern), new DecisionObserver(this));
  }

  /** The termination check's answer: stop, or go on to the next iteration. */
  decide(decision: TerminationDecision): void {
    const completed = this.iteration;
    if (decision.type !== 'continue') {
      this.stop(completed, decision);
      return;
    }
    const late = passedDeadline(this.overall, this.model.scheduler, this.model.pattern);
    if (late !== undefined) {
      this.stop(completed, late);
      return;
    }
    this.phase = 'iterate';
  }

  private stop(iterations: number, decision: Stop): void {
    this.phase = 'done';
    if (this.run !== undefined) emitTermination(this.run, decision);
    this.subscriber.next(this.resultOf(iterations, decision));
    this.subscriber.complete();
  }

  private resultOf(iterations: number, decision?: Stop): ExecutionResult<T> {
    return resultOf({ model: this.model, mode: 'direct', state: this.state, iterations, results: this.results, startedAt: this.startedAt }, decision);
  }
}

/** An agent call's result as the loop records it: a failure says whether it was a timeout. */
function callResult(result: AgentCallResult): AgentResult {
  return result.success ? result : { ...result, timedOut: result.error instanceof AgentTimeoutError };
}

/**
 * Observes what the loop waits for that yields agent results (one call, or a batch from
 * {@link dispatchAgents}): each result, then the loop goes on at `then`.
 */
class ResultObserver<T, R> extends Subscriber<R> {
  constructor(
    private readonly loop: DriverLoop<T>,
    private readonly toResult: (result: R) => AgentResult,
    private readonly then: Phase,
  ) {
    super();
  }

  protected override _next(result: R): void {
    try {
      this.loop.receive(this.toResult(result));
    } catch (error: unknown) {
      this.unsubscribe();
      this.loop.fail(error);
    }
  }

  protected override _error(error: unknown): void {
    this.unsubscribe();
    this.loop.fail(error);
  }

  protected override _complete(): void {
    this.unsubscribe();
    this.loop.resume(this.then);
  }
}

/** Observes a termination check that answers later (a judge, a deadline race). */
class DecisionObserver<T> extends Subscriber<TerminationDecision> {
  constructor(private readonly loop: DriverLoop<T>) {
    super();
  }

  protected override _next(decision: TerminationDecision): void {
    this.unsubscribe();
    try {
      this.loop.decide(decision);
    } catch (error: unknown) {
      this.loop.fail(error);
      return;
    }
    this.loop.advance();
  }

  protected override _error(error: unknown): void {
    this.unsubscribe();
    this.loop.fail(error);
  }
}
