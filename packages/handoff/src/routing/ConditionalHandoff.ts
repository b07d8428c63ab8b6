import { asyncScheduler, catchError, defaultIfEmpty, defer, map, mergeMap, Observable, of, race, type SchedulerLike, type Subscription, take, throwError } from 'rxjs';
import { z } from 'zod';
import { ConfigError, fromAbortSignal, lastValue, observeRun, parseConfig, traceResult, type Agent, type RunContext, type RunEvent, type RunEventsOptions } from '@rxagents/core';
import { HandoffExecuteOptionsSchema } from '../strategy/DefaultHandoff';
import { HandoffContractError } from '../errors/HandoffContractError';
import { HandoffRoutingError } from '../errors/HandoffRoutingError';
import { HandoffContext } from '../context/HandoffContext';
import type { HandoffPredicate } from '../chain/HandoffPredicate';
import type { HandoffResult } from '../strategy/HandoffResult';
import type { HandoffExecuteOptions, HandoffSource, HandoffStrategy } from '../strategy/HandoffStrategy';
import { evaluatePredicate } from '../chain/evaluatePredicate';
import { describeCall } from '../internal/describeCall';
import { failedHandoff } from '../internal/failedCall';
import { agentRule, checkHandoffCall, checkStrategy, DistinctAgentIds, HandoffStepSchema, isAgent, isStep, ROUTED, splitEventsOptions } from '../internal/rules';

const RouterSchema = z.strictObject({
  routes: z.array(HandoffStepSchema.required({ predicate: true })),
  fallback: agentRule().optional(),
});

type RouteDecision = { readonly agent: Agent | undefined } | { readonly error: unknown };

/**
 * One route of a {@link ConditionalHandoff}.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import type { HandoffRoute } from '@rxagents/handoff';
 *
 * const route: HandoffRoute = { predicate: (context) => 'invoiceId' in context.payload, agent: defineAgent('billing', async () => 'paid') };
 * ```
 */
export interface HandoffRoute {
  readonly predicate: HandoffPredicate;
  readonly agent: Agent;
}

/**
 * Routes one task to the first agent whose predicate matches, or to the `otherwise` agent.
 *
 * @remarks
 * Immutable: `when` and `otherwise` return a new router (each checks its routes: a `ConfigError` names a bad one), so one can be shared and extended. Predicates
 * may answer at once or later (a Promise or Observable of boolean); all are asked at once, and the first
 * *declared* match wins even when a later predicate answers sooner. With no match and no fallback the
 * result is a failure whose `toAgentId` is `'none'` and whose `error` is a {@link HandoffRoutingError}.
 * A predicate that throws or errors fails the routing when it is the one that decides.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { ConditionalHandoff, DefaultHandoff, HandoffContext } from '@rxagents/handoff';
 *
 * const intake = defineAgent('intake', async () => '');
 * const billing = defineAgent('billing', async () => 'Invoice 42 is paid.');
 * const support = defineAgent('support', async () => 'How can I help?');
 * const routed = await new ConditionalHandoff()
 *   .when((context) => 'invoiceId' in context.payload, billing)
 *   .otherwise(support)
 *   .execute(new DefaultHandoff(), intake, HandoffContext.of('ticket-7', { invoiceId: '42' }));
 * console.log(`${routed.toAgentId}: ${routed.output}`); // billing: Invoice 42 is paid.
 * ```
 */
export class ConditionalHandoff {
  /** The routes, in declaration order. */
  readonly routes: readonly HandoffRoute[];
  /** The agent used when no route matches. */
  readonly fallback: Agent | undefined;

  constructor(routes: readonly HandoffRoute[] = [], fallback?: Agent) {
    if (!Array.isArray(routes) || !routes.every((route) => isStep(route, true)) || (fallback !== undefined && !isAgent(fallback))) {
      parseConfig(RouterSchema, { routes, fallback }, 'ConditionalHandoff');
    }
    const ids = new DistinctAgentIds('ConditionalHandoff');
    routes.forEach((route, index) => ids.add(route.agent, `routes.${index}.agent`));
    if (fallback !== undefined) ids.add(fallback, 'fallback');
    this.routes = Object.freeze([...routes]);
    this.fallback = fallback;
  }

  /**
   * A router with one more route, tried after the existing ones.
   *
   * @example
   * ```ts
   * import { defineAgent } from '@rxagents/core';
   * import { ConditionalHandoff } from '@rxagents/handoff';
   *
   * const billing = defineAgent('billing', async () => 'ok');
   * const router = new ConditionalHandoff().when((context) => context.metadata.topic === 'billing', billing);
   * console.log(router.routes.length); // 1
   * ```
   */
  when(predicate: HandoffPredicate, agent: Agent): ConditionalHandoff {
    return new ConditionalHandoff([...this.routes, { predicate, agent }], this.fallback);
  }

  /**
   * A router that falls back to `agent` when no route matches.
   *
   * @example
   * ```ts
   * import { defineAgent } from '@rxagents/core';
   * import { ConditionalHandoff } from '@rxagents/handoff';
   *
   * const support = defineAgent('support', async () => 'ok');
   * console.log(new ConditionalHandoff().otherwise(support).fallback?.id); // support
   * ```
   */
  otherwise(agent: Agent): ConditionalHandoff {
    return new ConditionalHandoff(this.routes, agent);
  }

  /**
   * Emits the agent `context` routes to (`undefined` for none), or errors with what a deciding predicate threw.
   *
   * @example
   * ```ts
   * import { defineAgent } from '@rxagents/core';
   * import { ConditionalHandoff, HandoffContext } from '@rxagents/handoff';
   *
   * const billing = defineAgent('billing', async () => 'ok');
   * new ConditionalHandoff().when(async () => true, billing).route$(HandoffContext.of('t-1')).subscribe((agent) => console.log(agent?.id)); // billing
   * ```
   */
  route$(context: HandoffContext): Observable<Agent | undefined> {
    if (!(context instanceof HandoffContext)) {
      throw new ConfigError('ConditionalHandoff.route$', [{ path: 'context', rule: 'must be a HandoffContext (build one with new HandoffContext or HandoffContext.of)', received: context }]);
    }
    const { routes, fallback } = this;
    return new Observable<Agent | undefined>((subscriber) => {
      const answers: (boolean | { readonly error: unknown } | undefined)[] = new Array(routes.length);
      const subscriptions: (Subscription | undefined)[] = [];
      let decided = false;
      let cursor = 0;
      const decide = (): void => {
        while (!decided && cursor < routes.length) {
          const answer = answers[cursor];
          if (answer === undefined) return;
          if (answer === true) {
            decided = true;
            subscriber.next((routes[cursor] as HandoffRoute).agent);
            subscriber.complete();
            return;
          }
          if (answer !== false) {
            decided = true;
            subscriber.error(answer.error);
            return;
          }
          cursor += 1;
        }
        if (!decided) {
          decided = true;
          subscriber.next(fallback);
          subscriber.complete();
        }
      };
      for (let index = 0; index < routes.length && !subscriber.closed; index += 1) {
        subscriptions.push(
          evaluatePredicate(
            (routes[index] as HandoffRoute).predicate,
            context,
            `the predicate of the route to "${(routes[index] as HandoffRoute).agent.id}"`,
            (answer) => {
              answers[index] = answer;
              decide();
            },
            (error) => {
              answers[index] = { error };
              decide();
            },
          ),
        );
      }
      if (routes.length === 0) decide();
      return () => {
        for (const subscription of subscriptions) subscription?.unsubscribe();
      };
    });
  }

  /**
   * Routes `context` and hands it off with `handoff`; emits one result, never errors.
   *
   * @example
   * ```ts
   * import { defineAgent } from '@rxagents/core';
   * import { ConditionalHandoff, DefaultHandoff, HandoffContext } from '@rxagents/handoff';
   *
   * const router = new ConditionalHandoff();
   * router.execute$(new DefaultHandoff(), { id: 'intake' }, HandoffContext.of('t-1')).subscribe((r) => console.log(r.toAgentId)); // none
   * ```
   */
  execute$(handoff: HandoffStrategy, from: HandoffSource, context: HandoffContext, options?: HandoffExecuteOptions): Observable<HandoffResult> {
    const run = checkRouteCall(handoff, from, context, options);
    if (run === undefined) return this.#execute$(handoff, from, context, options);
    return traceResult(run, 'route', context.taskId, (node) => this.#execute$(handoff, from, context, { ...options, run: node }), describeCall);
  }

  /**
   * The routing's run events: the same run as {@link ConditionalHandoff.execute$}, as a new run named
   * `route` whose events you get as they happen.
   *
   * @remarks
   * One run per subscription: `run-start` (input: the task id), the chosen route's `handoff` node (a
   * `DefaultHandoff` reports its `handoff` event and the receiver's call, deltas as they come, under it),
   * then `run-end` with the result's `success` and `output` or `error`. When no route matches (a
   * `HandoffRoutingError`) or a predicate fails, no handoff runs and `run-end` carries the error
   * serialised. Every event's `at` is read from `options.scheduler` (default `asyncScheduler`).
   * Unsubscribing aborts the receiver.
   *
   * With `store` and `runId` the run is durable: journaled in the store, and resumed from its journal when the store already holds `runId` (finished agent calls are answered from it; see `docs/durable.md`).
   *
   * @param handoff - The strategy the chosen route runs through.
   * @param from - The sender.
   * @param context - The task the predicates see.
   * @param options - As for `execute$`, without `run`.
   * @returns The run's events.
   * @throws {@link @rxagents/core!ConfigError | ConfigError} when `from`, `context` or an option is invalid.
   *
   * @example
   * ```ts
   * import { defineAgent } from '@rxagents/core';
   * import { ConditionalHandoff, DefaultHandoff, HandoffContext } from '@rxagents/handoff';
   *
   * const router = new ConditionalHandoff()
   *   .when((context) => context.payload.kind === 'refund', defineAgent('refunds', async () => 'refunded'))
   *   .otherwise(defineAgent('support', async () => 'answered'));
   * router.events$(new DefaultHandoff(), { id: 'triage' }, HandoffContext.of('t-9', { kind: 'refund' })).subscribe((event) => {
   *   if (event.type === 'handoff') console.log(event.to); // refunds
   * });
   * ```
   */
  events$(handoff: HandoffStrategy, from: HandoffSource, context: HandoffContext, eventsOptions?: Omit<HandoffExecuteOptions, 'run'> & RunEventsOptions): Observable<RunEvent> {
    const { run: runOptions, options } = splitEventsOptions('ConditionalHandoff events options', eventsOptions);
    checkRouteCall(handoff, from, context, options);
    return observeRun('route', context.taskId, (run) => this.#execute$(handoff, from, context, { ...options, run }), { ...runOptions, scheduler: options?.scheduler, describe: describeCall });
  }

  #execute$(handoff: HandoffStrategy, from: HandoffSource, context: HandoffContext, options: HandoffExecuteOptions | undefined): Observable<HandoffResult> {
    const scheduler: SchedulerLike = options?.scheduler ?? asyncScheduler;
    return defer(() => {
      const start = scheduler.now();
      const failure = (error: unknown, toAgentId = 'none'): Observable<HandoffResult> =>
        of(failedHandoff(from.id, toAgentId, context, error, start, scheduler.now() - start));
      const signal = options?.signal;
      // No agent runs while a predicate is pending, so the routing itself must hear an abort.
      const routed$ = signal === undefined ? this.route$(context) : race(this.route$(context), abortOf(signal));
      return routed$.pipe(
        map((agent): RouteDecision => ({ agent })),
        catchError((error: unknown) => of<RouteDecision>({ error })),
        mergeMap((decision) => {
          if ('error' in decision) return failure(decision.error);
          if (decision.agent === undefined) {
            return failure(new HandoffRoutingError(from.id, `no predicate matched task "${context.taskId}" and no otherwise agent is set`));
          }
          const agent = decision.agent;
          // A strategy of the user's is held to the contract: one result, never an error. Its first result is
          // taken in a run too (a strategy's traceResult node has ended by then); waiting for completion
          // would hang on a strategy that stays subscribed.
          return defer(() => handoff.execute$(from, agent, context, options)).pipe(
            take(1),
            catchError((error: unknown) => failure(error, agent.id)),
            defaultIfEmpty(undefined),
            mergeMap((result) =>
              result === undefined ? failure(new HandoffContractError(`the strategy handing off to "${agent.id}"`, 'completed without a result', undefined), agent.id) : of(result),
            ),
          );
        }),
      );
    });
  }

  /**
   * The Promise form of {@link ConditionalHandoff.execute$}: resolves with the result, a failed handoff included; only invalid arguments reject (a `ConfigError`).
   *
   * @example
   * ```ts
   * import { defineAgent } from '@rxagents/core';
   * import { ConditionalHandoff, DefaultHandoff, HandoffContext } from '@rxagents/handoff';
   *
   * const support = defineAgent('support', async () => 'ok');
   * const result = await new ConditionalHandoff().otherwise(support).execute(new DefaultHandoff(), { id: 'intake' }, HandoffContext.of('t-1'));
   * console.log(result.toAgentId); // support
   * ```
   */
  execute(handoff: HandoffStrategy, from: HandoffSource, context: HandoffContext, options?: HandoffExecuteOptions): Promise<HandoffResult> {
    // defer: an invalid argument rejects the Promise rather than throwing from the call.
    return lastValue(defer(() => this.execute$(handoff, from, context, options)));
  }
}

/** Refuses a strategy without `execute$`, a source without an id, a context that is not a `HandoffContext` and invalid options; returns the run, if any. */
function checkRouteCall(handoff: unknown, from: unknown, context: unknown, options: HandoffExecuteOptions | undefined): RunContext | undefined {
  checkStrategy('ConditionalHandoff', handoff);
  checkHandoffCall('ConditionalHandoff', from, ROUTED, context, (value) => value instanceof HandoffContext);
  return options === undefined ? undefined : parseConfig(HandoffExecuteOptionsSchema, options, 'ConditionalHandoff options').run;
}

/** Errors with the signal's reason when it aborts; never emits. */
function abortOf(signal: AbortSignal): Observable<never> {
  return fromAbortSignal(signal).pipe(mergeMap((reason) => throwError(() => reason)));
}
