import type { Observable, SchedulerLike } from 'rxjs';
import type { Agent, RunContext } from '@rxagents/core';
import type { HandoffContext } from '../context/HandoffContext';
import type { HandoffResult } from './HandoffResult';

/**
 * The sending side of a handoff: only its id is used, so any agent (or a plain `{ id }`) fits.
 *
 * @example
 * ```ts
 * import type { HandoffSource } from '@rxagents/handoff';
 *
 * const gateway: HandoffSource = { id: 'http-gateway' };
 * ```
 */
export type HandoffSource = Pick<Agent, 'id'>;

/**
 * Builds the prompt a receiver answers from the context it is handed (see {@link defaultHandoffPrompt}).
 *
 * @remarks
 * Called once per handoff, before the receiver is touched. It must return a string: anything else, or a
 * throw, gives a failure result (a {@link HandoffContractError} for a non-string) and the receiver never runs.
 *
 * @example
 * ```ts
 * import type { HandoffPrompt } from '@rxagents/handoff';
 *
 * // In a chain, hand each step the previous reply as it is.
 * const prompt: HandoffPrompt = (context) => String(context.payload.previousOutput ?? context.payload.document ?? '');
 * ```
 */
export type HandoffPrompt = (context: HandoffContext) => string;

/**
 * Per-call options of a {@link HandoffStrategy}.
 *
 * @example
 * ```ts
 * import { asapScheduler } from 'rxjs';
 * import type { HandoffExecuteOptions } from '@rxagents/handoff';
 *
 * const options: HandoffExecuteOptions = {
 *   timeout: 30_000,
 *   scheduler: asapScheduler,
 *   signal: new AbortController().signal,
 *   prompt: (context) => `Task ${context.taskId}: ${JSON.stringify(context.payload)}`,
 * };
 * ```
 */
export interface HandoffExecuteOptions {
  /** Fails the handoff when the receiver takes longer than this, in ms (on `scheduler`): greater than 0 and at most `MAX_DELAY_MS` (about 24.8 days), or `Infinity` for none. */
  readonly timeout?: number;
  /** The clock for `timeout` and `durationMs`. Defaults to `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Aborting it aborts the receiver and gives a failure result whose `error` is the abort reason (wrapped in an `AgentError` whose `cause` it is when it is not an `Error`). */
  readonly signal?: AbortSignal;
  /** The prompt the receiver answers, built from the context. Defaults to {@link defaultHandoffPrompt}. Strategies of your own may ignore it. */
  readonly prompt?: HandoffPrompt;
  /**
   * The run to report into (a `RunContext` from `observeRun`, a primitive's node, or an agent's
   * `ChatOptions.run`): the handoff is then a `handoff` node of that run, with a `handoff` event and the
   * receiver's call (deltas as they come) under it. Strategies of your own may ignore it.
   */
  readonly run?: RunContext;
}

/**
 * How a task moves from one agent to another.
 *
 * @remarks
 * `execute$` emits exactly one {@link HandoffResult} and completes; it never errors: anything that goes
 * wrong is a failure result. The result is core's `AgentCallResult` for the receiver's call (build it
 * with `callAgent` from `@rxagents/core`) plus `fromAgentId`, `toAgentId`, and the `taskId` and `context`
 * it was given (all required), so callers can match results to requests. Unsubscribing aborts the
 * receiver. `execute` is the Promise form. {@link DefaultHandoff} is the shipped implementation;
 * {@link HandoffChain} and {@link ConditionalHandoff} accept any, through this interface alone. They (and
 * the `handoffTo` operator) take the first result and unsubscribe, with a `run` option or without; a strategy that reports a node of its
 * own into `options.run` makes it with `traceResult` from `@rxagents/core`, whose node ends with that first
 * result.
 *
 * @example
 * ```ts
 * import { map } from 'rxjs';
 * import { callAgent, defineAgent, lastValue } from '@rxagents/core';
 * import { HandoffChain, HandoffContext, type HandoffStrategy } from '@rxagents/handoff';
 *
 * // Hands each receiver the previous reply as it is, and nothing else.
 * const plain: HandoffStrategy = {
 *   execute$: (from, to, context) =>
 *     callAgent(to, String(context.payload.previousOutput ?? context.payload.text ?? '')).pipe(
 *       map((call) => ({ ...call, fromAgentId: from.id, toAgentId: to.id, taskId: context.taskId, context })),
 *     ),
 *   execute: (from, to, context, options) => lastValue(plain.execute$(from, to, context, options)),
 * };
 * const shout = defineAgent('shout', async (input) => input.toUpperCase());
 * const results = await HandoffChain.builder().from().add(shout).build().execute(plain, HandoffContext.of('t-1', { text: 'hi' }));
 * console.log(results[0]?.output); // HI
 * ```
 */
export interface HandoffStrategy {
  /** Hands `context` from `from` to `to`; resolves with the result, a failed handoff included; invalid arguments reject, never throw. */
  execute(from: HandoffSource, to: Agent, context: HandoffContext, options?: HandoffExecuteOptions): Promise<HandoffResult>;
  /** Hands `context` from `from` to `to`; emits one result, never errors. */
  execute$(from: HandoffSource, to: Agent, context: HandoffContext, options?: HandoffExecuteOptions): Observable<HandoffResult>;
}
