import { Observable, type Observer, queueScheduler, type SchedulerLike, Subscriber, type Subscription, type Unsubscribable } from 'rxjs';
import { AgentError, callAgent, fromAbortSignal, preview, reportUnhandledError, type Agent, type AgentCallResult, type AgentMessage, type AgentCallOptions, type Message, type RunContext } from '@rxagents/core';
import { currentHandoffChain, runUnderHandoffChain, runWithChain } from '../guards/currentHandoffChain';
import { HandoffContractError } from '../errors/HandoffContractError';
import { HandoffDepthError } from '../errors/HandoffDepthError';
import type { HandoffSource } from '../strategy/HandoffStrategy';
import { asError } from '../internal/failedCall';
import type { HandoffPermits } from '../guards/HandoffPermits';

/**
 * The one engine every handoff runs on: `DefaultHandoff` (and so `HandoffChain`, `ConditionalHandoff`
 * and the operators with it), and `Handoff` (and so `parallelHandoffs` and `routingAgent`).
 *
 * One handoff, in order: an aborted `signal` fails it at once; the prompt is resolved (a throw or a
 * non-string fails it before the receiver is touched); observers hear `before`; the receiver's `receive`
 * gets the `request` message, if any; then, under the permits (the concurrency guard), the receiver is
 * called through core's `callAgent` (timeout on the scheduler, abort on unsubscription, errors wrapped)
 * under the extended chain. The result is core's `AgentCallResult`, stamped with the handoff's own start
 * (so `durationMs` includes a wait for a permit), given the adapter's fields by `shape`, and delivered
 * under the caller's chain. The cycle and depth guards run before all this: `checkHandoffGuards`.
 *
 * With a `run` (someone watches the run's events), the engine says `handoff` (from, to, `taskId`) under it
 * just before the receiver is called, and the receiver's call reports into it (call-start, its deltas as
 * they come, call-end or call-error). Without one, no event object is built.
 */
export interface HandoffSpec<C, R> {
  readonly from: HandoffSource;
  readonly to: Agent;
  /** The prompt as given, or the setting that builds it from `context`. */
  readonly prompt: string | ((context: C) => string);
  /** What the adapter hands over; observers and `shape` see it. */
  readonly context: C;
  /** The chain the receiver runs under; `undefined`: the chain in scope where the handoff starts, then the sender. */
  readonly chain: readonly string[] | undefined;
  /** History passed as `ChatOptions.context`. */
  readonly messages: readonly Message[] | undefined;
  /** Passed as `ChatOptions.metadata`. */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** Delivered to the receiver's `receive`, if it has one, before it is called. */
  readonly request: AgentMessage | undefined;
  readonly scheduler: SchedulerLike;
  /** Bounds the receiver's turn, in ms; `undefined` or `Infinity` for none. */
  readonly timeout: number | undefined;
  /** Aborting it aborts the receiver; the result is a failure carrying the reason. */
  readonly signal: AbortSignal | undefined;
  readonly permits: HandoffPermits | undefined;
  readonly observers: HandoffObservers<C, R> | undefined;
  /** The adapter's result: the call's result with its own fields. Called once per handoff. */
  readonly shape: (result: AgentCallResult, spec: HandoffSpec<C, R>) => R;
  /** The run node the handoff reports into; absent when nobody watches (the hot path builds no field for it). */
  readonly run?: RunContext | undefined;
  /** The task's id, for the `handoff` event; read only with a `run`. */
  readonly taskId?: string;
  /**
   * A depth limit set by the context handed over (`HandoffContext.maxDepth`): the handoff fails with a
   * {@link HandoffDepthError} when the chain before the sender is already this deep. Absent: no check here
   * (`Handoff` checks its own guards before it builds the spec).
   */
  readonly maxDepth?: number;
  /** The depth the context declares (at least the chain's length counts); read only with `maxDepth`. */
  readonly depth?: number;
}

/** Who hears about each handoff (a `DefaultHandoff`'s listeners). Neither method may throw. */
export interface HandoffObservers<C, R> {
  before(from: HandoffSource, to: Agent, context: C): void;
  result(result: R): void;
}

/** Where a run delivers its one result: an RxJS subscriber. */
export type HandoffResultObserver<R> = Pick<Observer<R>, 'next' | 'complete'>;

/** Runs the handoff `spec` on each subscription: one result, then completion; never an error. */
export function handoff$<C, R>(spec: HandoffSpec<C, R>): Observable<R> {
  return new Observable<R>((subscriber) => new HandoffRun(subscriber, spec).run());
}

/**
 * One handoff, as an object with methods rather than closures: it is the observer of the call's result
 * and the teardown, so a hop allocates a handful of objects (and a subscription to the abort signal,
 * when there is one). This is the hot path `pnpm bench handoff` measures.
 *
 * Stack-safe: within a handoff (a non-empty chain in scope, so a re-entry can nest), subscribing to the
 * receiver and delivering the result go through RxJS's `queueScheduler`, a trampoline: outside a queue
 * action they run at once; a handoff started synchronously from within a receiver is queued behind the
 * current action instead of nesting on the stack. A top-level handoff (the hot path) calls directly.
 */
class HandoffRun<C, R> extends Subscriber<AgentCallResult> {
  private input = '';
  private done = false;
  private starting: Subscription | undefined;
  private abort: Subscription | undefined;
  private readonly start: number;
  /** The chain in scope where the handoff was subscribed; the result is delivered under it, not the receiver's. */
  private readonly callerChain: readonly string[];

  constructor(
    private readonly subscriber: HandoffResultObserver<R>,
    private readonly spec: HandoffSpec<C, R>,
  ) {
    super();
    this.start = spec.scheduler.now();
    this.callerChain = currentHandoffChain();
  }

  /** Starts the handoff; returns itself as the teardown. */
  run(): Unsubscribable {
    const { spec } = this;
    const { from, to, signal } = spec;
    if (signal?.aborted) return this.fail(signal.reason);
    if (spec.maxDepth !== undefined) {
      // The chain before the sender, as `Handoff` counts it: the given chain, else the one in scope.
      const depth = Math.max(spec.chain === undefined ? this.callerChain.length : spec.chain.length - 1, spec.depth ?? 0);
      if (depth >= spec.maxDepth) return this.fail(new HandoffDepthError(spec.maxDepth, depth, { sourceAgentId: from.id, targetAgentId: to.id }));
    }
    let prompt: string;
    if (typeof spec.prompt === 'string') {
      prompt = spec.prompt;
    } else {
      let built: unknown;
      try {
        built = spec.prompt(spec.context);
      } catch (error) {
        return this.fail(error);
      }
      if (typeof built !== 'string') {
        return this.fail(new HandoffContractError(`the prompt of the handoff to "${to.id}"`, `returned ${preview(built)}; it must return a string`, built));
      }
      prompt = built;
    }
    this.input = prompt;
    spec.observers?.before(from, to, spec.context);
    if (spec.request !== undefined && to.receive !== undefined) {
      let receipt: unknown;
      try {
        receipt = to.receive(spec.request);
      } catch (error) {
        return this.fail(new AgentError(to.id, error));
      }
      // An `async receive` returns a Promise: its rejection is the receiver failing, never an unhandled rejection.
      if (isPromiseLike(receipt)) receipt.then(undefined, (error: unknown) => this.receiveFailed(error));
    }
    const chain = spec.chain ?? Object.freeze([...this.callerChain, from.id]);
    if (spec.run !== undefined) emitHandoff(spec.run, from.id, to.id, spec.taskId ?? '');
    const call$ = callAgent(to, prompt, callOptions(spec));
    // Under permits, the receiver may start later, from whoever frees one: it must set its chain itself.
    const source$ = spec.permits === undefined ? call$ : spec.permits.run(chain, underChain(chain, call$));
    if (signal !== undefined) this.abort = fromAbortSignal(signal).subscribe((reason) => this.aborted(reason));
    if (this.callerChain.length === 0) this.subscribeReceiver(chain, source$);
    else this.starting = queueScheduler.schedule(subscribeUnder, 0, { run: this, chain, source$ } as StartState);
    return this;
  }

  /** Subscribes to the receiver (from the trampoline), unless the handoff already ended. */
  subscribeReceiver(chain: readonly string[], source$: Observable<AgentCallResult>): void {
    if (this.done) return;
    // Subscribing under the chain makes the receiver's chat (and, with AsyncLocalStorage, its async work) see it.
    runUnderHandoffChain(chain, subscribeWith, source$, this, undefined);
  }

  protected override _next(result: AgentCallResult): void {
    if (this.done) return;
    // The call's own result when it started with the handoff (no wait for a permit): one object less per hop.
    if (result.startedAt === this.start) this.deliver(result);
    else this.finish(result.success, result.output, result.error);
  }

  protected override _error(error: unknown): void {
    // callAgent records failures as results; this is a misbehaving permit or scheduler.
    this.stopCall();
    this.fail(error);
  }

  protected override _complete(): void {
    // The result arrived in `next`; callAgent never completes empty.
    this.stopCall();
  }

  /**
   * The Promise an `async receive` returned rejected: before the result, the handoff fails (its call is
   * stopped); after it, or once cancelled, the error has nowhere to go and is reported as unhandled.
   */
  receiveFailed(error: unknown): void {
    const failure = new AgentError(this.spec.to.id, error);
    if (this.done) {
      reportUnhandledError(failure);
      return;
    }
    this.stopCall();
    this.fail(failure);
  }

  /** Ends the handoff when its signal aborts. */
  aborted(reason: unknown): void {
    this.stopCall();
    this.fail(reason);
  }

  /** The handoff's teardown: it ends, and its call (if it started) is stopped. */
  override unsubscribe(): void {
    this.done = true;
    this.abort?.unsubscribe();
    this.starting?.unsubscribe();
    super.unsubscribe();
  }

  /**
   * Stops observing the receiver's call (and so stops the call), without ending the handoff: this run is the
   * call's subscriber as well as the handoff's teardown, one object for both.
   */
  private stopCall(): void {
    super.unsubscribe();
  }

  private fail(error: unknown): this {
    this.finish(false, undefined, error);
    return this;
  }

  private finish(success: boolean, output: string | undefined, error: unknown): void {
    if (this.done) return;
    const { spec, start, input } = this;
    const agentId = spec.to.id;
    const durationMs = spec.scheduler.now() - start;
    const call: AgentCallResult = success
      ? { success: true, agentId, input, output: output as string, startedAt: start, durationMs }
      : { success: false, agentId, input, error: asError(agentId, error), startedAt: start, durationMs };
    this.deliver(call);
  }

  private deliver(call: AgentCallResult): void {
    this.done = true;
    this.abort?.unsubscribe();
    const { spec } = this;
    const result = spec.shape(call, spec);
    // The receiver's reply arrives in its async context (under the extended chain); deliver the result under
    // the caller's chain so nothing downstream inherits the receiver's chain.
    if (this.callerChain.length === 0) runUnderHandoffChain(this.callerChain, deliver, this.subscriber, result, spec.observers);
    else queueScheduler.schedule(deliverUnder, 0, { chain: this.callerChain, subscriber: this.subscriber, result, observers: spec.observers } as DeliverState<R>);
  }
}

/** Says `handoff` under `run`'s node: `from` handed task `taskId` to `to`. */
function emitHandoff(run: RunContext, from: string, to: string, taskId: string): void {
  const { runId, callId, parentCallId, scheduler } = run;
  run.emit({ type: 'handoff', runId, callId: callId as string, parentCallId, at: scheduler.now(), from, to, taskId });
}

function callOptions(spec: Pick<HandoffSpec<unknown, unknown>, 'scheduler' | 'metadata' | 'messages' | 'timeout' | 'run'>): AgentCallOptions {
  const { scheduler, metadata, messages, timeout, run } = spec;
  if (run !== undefined) {
    const limited = timeout !== undefined && timeout !== Infinity;
    return { scheduler, metadata, ...(messages === undefined ? {} : { context: messages }), ...(limited ? { timeout } : {}), run };
  }
  const limited = timeout !== undefined && timeout !== Infinity;
  if (messages === undefined) return limited ? { scheduler, metadata, timeout } : { scheduler, metadata };
  return limited ? { scheduler, metadata, context: messages, timeout } : { scheduler, metadata, context: messages };
}

/** `source$`, subscribed under `chain` whoever subscribes to it. */
function underChain<T>(chain: readonly string[], source$: Observable<T>): Observable<T> {
  return new Observable<T>((subscriber) => runWithChain(chain, subscribeWith, source$, subscriber as Subscriber<T>));
}

interface StartState {
  readonly run: HandoffRun<unknown, unknown>;
  readonly chain: readonly string[];
  readonly source$: Observable<AgentCallResult>;
}

function subscribeUnder(state?: StartState): void {
  const { run, chain, source$ } = state as StartState;
  run.subscribeReceiver(chain, source$);
}

interface DeliverState<R> {
  readonly chain: readonly string[];
  readonly subscriber: HandoffResultObserver<R>;
  readonly result: R;
  readonly observers: HandoffObservers<unknown, R> | undefined;
}

function deliverUnder<R>(state?: DeliverState<R>): void {
  const { chain, subscriber, result, observers } = state as DeliverState<R>;
  runUnderHandoffChain(chain, deliver, subscriber, result, observers);
}

function deliver<R>(subscriber: HandoffResultObserver<R>, result: R, observers: HandoffObservers<never, R> | undefined): void {
  observers?.result(result);
  subscriber.next(result);
  subscriber.complete();
}

function subscribeWith<T>(source$: Observable<T>, observer: Partial<Observer<T>>): Subscription {
  return source$.subscribe(observer);
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
