import { type Observable, type Observer, queueScheduler, type SchedulerLike, type Subscription, type Unsubscribable } from 'rxjs';
import { AgentError, fromAbortSignal, stream, preview, type Agent } from '@rxagents/core';
import { currentHandoffChain, runWithHandoffChain } from '../currentHandoffChain';
import type { HandoffContext } from '../HandoffContext';
import type { HandoffResult } from '../HandoffResult';
import type { HandoffPrompt, HandoffSource } from '../HandoffStrategy';
import { HandoffContractError } from '../errors/HandoffContractError';

/** Who hears about an attempt: the {@link DefaultHandoff}'s listeners. */
export interface AttemptListeners {
  notifyBefore(from: HandoffSource, to: Agent, context: HandoffContext): void;
  notifyResult(result: HandoffResult): void;
}

/** Where an attempt delivers its one result: an RxJS subscriber, or the chain runner directly. */
export interface AttemptObserver {
  next(result: HandoffResult): void;
  complete(): void;
}

/** The settings of one attempt. */
export interface AttemptSettings {
  readonly scheduler: SchedulerLike;
  readonly timeout: number | undefined;
  readonly signal: AbortSignal | undefined;
  readonly prompt: HandoffPrompt;
}

/**
 * One `DefaultHandoff` delivery, as an object with methods rather than closures: it is the observer of
 * the receiver's chunks and the teardown, so a hop allocates a handful of objects (and a subscription to
 * the abort signal, when there is one).
 * This is the hot path `pnpm bench handoff` measures.
 *
 * Stack-safe: within a handoff (a non-empty chain in scope, so a re-entry can nest), subscribing to the
 * receiver and delivering the result go through RxJS's `queueScheduler`, a trampoline: outside a queue
 * action they run at once; a handoff started synchronously from within a receiver is queued behind the
 * current action instead of nesting on the stack. A top-level attempt (the hot path) calls directly.
 */
export class HandoffAttempt implements Observer<string>, Unsubscribable {
  private output = '';
  private done = false;
  private inner: Subscription | undefined;
  private starting: Subscription | undefined;
  private abort: Subscription | undefined;
  private readonly start: number;
  /** The chain in scope where the attempt was subscribed; results are delivered under it, not the receiver's. */
  private readonly callerChain: readonly string[];

  constructor(
    private readonly subscriber: AttemptObserver,
    private readonly from: HandoffSource,
    private readonly to: Agent,
    private readonly context: HandoffContext,
    private readonly settings: AttemptSettings,
    private readonly listeners: AttemptListeners,
  ) {
    this.start = settings.scheduler.now();
    this.callerChain = currentHandoffChain();
  }

  /** Starts the attempt; returns itself as the teardown. */
  run(): Unsubscribable {
    const { from, to, context, settings } = this;
    if (settings.signal?.aborted) {
      this.finish(null, settings.signal.reason, false);
      return this;
    }
    let prompt: unknown;
    try {
      prompt = settings.prompt(context);
    } catch (error) {
      this.finish(null, error, false);
      return this;
    }
    if (typeof prompt !== 'string') {
      this.finish(null, new HandoffContractError(`the prompt of the handoff to "${to.id}"`, `returned ${preview(prompt)}; it must return a string`, prompt), false);
      return this;
    }
    this.listeners.notifyBefore(from, to, context);
    try {
      to.receive?.({ type: 'HANDOFF_REQUEST', from: from.id, to: to.id, payload: { ...context.payload, taskId: context.taskId } });
    } catch (error) {
      this.finish(null, new AgentError(to.id, error), false);
      return this;
    }
    const metadata = { ...context.metadata, taskId: context.taskId };
    const chain = Object.freeze([...(context.handoffChain ?? this.callerChain), from.id]);
    const chunks$ = stream(to, prompt, settings.timeout === undefined ? { scheduler: settings.scheduler, metadata } : { scheduler: settings.scheduler, metadata, timeout: settings.timeout });
    if (settings.signal !== undefined) this.abort = fromAbortSignal(settings.signal).subscribe((reason) => this.aborted(reason));
    if (this.callerChain.length === 0) this.subscribeReceiver(chain, chunks$);
    else this.starting = queueScheduler.schedule(subscribeUnder, 0, { attempt: this, chain, chunks$ });
    return this;
  }

  /** Subscribes to the receiver (from the trampoline), unless the attempt already ended. */
  subscribeReceiver(chain: readonly string[], chunks$: Observable<string>): void {
    if (this.done) return;
    // Subscribing under the chain makes the receiver's chat (and, with AsyncLocalStorage, its async work) see it.
    this.inner = runWithHandoffChain(chain, subscribeWith, chunks$, this);
  }

  next(chunk: string): void {
    this.output += chunk;
  }

  error(error: unknown): void {
    this.finish(null, error, false);
  }

  complete(): void {
    this.finish(this.output, undefined, true);
  }

  /** Ends the attempt when its signal aborts. */
  aborted(reason: unknown): void {
    this.inner?.unsubscribe();
    this.finish(null, reason, false);
  }

  unsubscribe(): void {
    this.done = true;
    this.abort?.unsubscribe();
    this.starting?.unsubscribe();
    this.inner?.unsubscribe();
  }

  private finish(output: string | null, error: unknown, success: boolean): void {
    if (this.done) return;
    this.done = true;
    this.abort?.unsubscribe();
    const { from, to, context } = this;
    const taskId = context.taskId;
    const durationMs = this.settings.scheduler.now() - this.start;
    const result: HandoffResult = success
      ? { success, fromAgentId: from.id, toAgentId: to.id, taskId, context, durationMs, output }
      : { success, fromAgentId: from.id, toAgentId: to.id, taskId, context, durationMs, output: null, error };
    // The receiver's reply arrives in its async context (under the extended chain); deliver the result under
    // the caller's chain so nothing downstream inherits the receiver's chain.
    if (this.callerChain.length === 0) runWithHandoffChain(this.callerChain, deliver, this.subscriber, result, this.listeners);
    else queueScheduler.schedule(deliverUnder, 0, { chain: this.callerChain, subscriber: this.subscriber, result, listeners: this.listeners });
  }
}

interface StartState {
  readonly attempt: HandoffAttempt;
  readonly chain: readonly string[];
  readonly chunks$: Observable<string>;
}

function subscribeUnder(state?: StartState): void {
  const { attempt, chain, chunks$ } = state as StartState;
  attempt.subscribeReceiver(chain, chunks$);
}

interface DeliverState {
  readonly chain: readonly string[];
  readonly subscriber: AttemptObserver;
  readonly result: HandoffResult;
  readonly listeners: AttemptListeners;
}

function deliverUnder(state?: DeliverState): void {
  const { chain, subscriber, result, listeners } = state as DeliverState;
  runWithHandoffChain(chain, deliver, subscriber, result, listeners);
}

function deliver(subscriber: AttemptObserver, result: HandoffResult, listeners: AttemptListeners): void {
  listeners.notifyResult(result);
  subscriber.next(result);
  subscriber.complete();
}

function subscribeWith(chunks$: Observable<string>, attempt: HandoffAttempt): Subscription {
  return chunks$.subscribe(attempt);
}
