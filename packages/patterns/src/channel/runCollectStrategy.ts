import { catchError, concat, concatMap, defer, filter, ignoreElements, map, merge, type Observable, of, take, tap, throwError, toArray } from 'rxjs';
import type { AgentResult } from '../execution/AgentResult';
import { AppendLog } from '../conversation/AppendLog';
import type { BarrierStrategy, FanInStrategy } from './ChannelExecutionStrategy';
import { dispatchAgents } from '../execution/dispatchAgents';
import { overallDeadline } from '../execution/RunDeadline';
import { MessageDroppedError } from '../errors/MessageDroppedError';
import type { ExecutionModel } from '../execution/ExecutionModel';
import type { ExecutionResult } from '../execution/ExecutionResult';
import { resultOf } from '../execution/resultOf';
import { evaluateTermination } from '../termination/evaluateTermination';
import type { RunContext } from '@rxagents/core';
import { emitMessage, emitRoundEnd, emitTermination } from '../execution/patternEvents';
import type { TerminationDecision } from '../termination/TerminationDecision';
import { UnreadReplies } from '../conversation/UnreadReplies';

/** The channel a FanIn or Barrier posts results on. */
export interface ResultChannel {
  /** Posts a result and emits once whether it entered the channel (`false`: it was dropped). */
  offer$(result: AgentResult): Observable<boolean>;
  asObservable(): Observable<AgentResult>;
}

/**
 * FanIn and Barrier: dispatch every agent concurrently, post each result on the channel, collect them
 * back from the channel (as they arrive for FanIn, all at once in agent order for Barrier), then decide
 * once with the model's termination condition (`continue` counts as `complete`: everybody answered).
 * Results are posted one after another (a post may wait for room under `BLOCK`); a result the channel
 * drops could never be collected, so it ends the run as `failed` with {@link MessageDroppedError}.
 * Only the results this run posted are collected: anything else on the channel (a watcher posting a
 * result of its own, even under the name of one of the run's agents) is no result of the run.
 * With `run`, every call reports into it, each successful result collected from the channel is a
 * `message`, the one round's end a `round-end` and the decision a `termination`.
 */
export function runCollectStrategy<T>(
  strategy: FanInStrategy | BarrierStrategy,
  model: ExecutionModel<T>,
  input: string,
  channel: ResultChannel,
  run?: RunContext,
): Observable<ExecutionResult<T>> {
  return defer(() => {
    const { scheduler, agents } = model;
    const startedAt = scheduler.now();
    const timeoutMs = strategy.timeout ?? model.timeout;
    const initial = model.initialState(input);
    let state = initial;
    let results = AppendLog.empty<AgentResult>();
    // The one iteration is completed once every agent's result is aggregated, as in a direct run.
    const completed = (): number => (results.length === agents.length ? 1 : 0);
    const facts = (iterations: number) => ({ model, mode: 'channel' as const, state, iterations, results, startedAt });
    const stop = (iterations: number, decision: Exclude<TerminationDecision, { type: 'continue' }>): ExecutionResult<T> => {
      if (run !== undefined) emitTermination(run, decision);
      return resultOf(facts(iterations), decision);
    };

    // The very results this run posted and has not read back: whoever holds the channel may post on it
    // too (a watcher given it by `onChannel`), and only the run's agents' replies to its request count.
    // The channel is the run's own, in this process, so a result is recognised by identity. The channel
    // can end before the run reads them all (closed by a watcher that hears each result first), and a
    // result never read was dropped.
    const unread = new UnreadReplies<AgentResult>();
    const taken$ = channel.asObservable().pipe(
      filter((result) => unread.read(result)),
      take(agents.length),
    );
    const arrivals$ = run === undefined ? taken$ : taken$.pipe(
            tap((result) => {
              if (result.success) emitMessage(run, result.agentId, result.output);
            }),
          );
    const collected$: Observable<ExecutionResult<T>> =
      strategy.kind === 'fanIn'
        ? arrivals$.pipe(
            map((result) => {
              state = model.aggregate(state, result);
              results = results.append(result);
              return resultOf(facts(completed()));
            }),
          )
        : arrivals$.pipe(
            toArray(),
            map((arrived) => {
              // The state folds them in agent order (an agent listed twice has two results, both kept);
              // `results` keeps the order they reached the run, as directly.
              const byAgent = new Map<string, AgentResult[]>();
              for (const result of arrived) byAgent.set(result.agentId, [...(byAgent.get(result.agentId) ?? []), result]);
              for (const agent of agents) {
                const result = byAgent.get(agent.id)?.shift();
                if (result !== undefined) state = model.aggregate(state, result);
              }
              for (const result of arrived) results = results.append(result);
              return resultOf(facts(completed()));
            }),
          );
    const dispatched$ = dispatchAgents(agents, (ref) => model.prompt(initial, ref, 0), {
      pattern: model.pattern,
      concurrency: strategy.concurrency ?? model.agents.length,
      agentTimeout: strategy.agentTimeout ?? model.agentTimeout,
      overall: overallDeadline(timeoutMs, startedAt),
      failFast: false,
      scheduler,
      run,
    }).pipe(
      concatMap((result) => {
        // Counted before posting: the channel delivers (and the run reads) during the post.
        unread.posted(result, result.agentId);
        return channel.offer$(result).pipe(
          tap((accepted) => {
            if (!accepted) throw new MessageDroppedError(model.pattern, result.agentId);
          }),
        );
      }),
      ignoreElements(),
    );

    const decide$ = defer(() => {
      if (unread.count > 0) throw new MessageDroppedError(model.pattern, unread.oneOf() as string);
      const failure = model.failOnAgentError ? results.toArray().find((result) => !result.success) : undefined;
      if (failure !== undefined && !failure.success) {
        // An iteration in which an agent failed is not a completed one.
        return of(stop(0, { type: 'failed', reason: `agent ${failure.agentId} failed`, error: failure.error }));
      }
      if (run !== undefined) emitRoundEnd(run, 1);
      const elapsedMs = scheduler.now() - startedAt;
      return evaluateTermination(model.termination, run === undefined ? { state, iteration: 1, elapsedMs } : { state, iteration: 1, elapsedMs, run }).pipe(
        concatMap((decision) => of(stop(1, decision.type === 'continue' ? { type: 'complete', reason: 'every agent answered' } : decision))),
      );
    });
    return concat(merge(collected$, dispatched$), decide$).pipe(
      catchError((error: unknown) =>
        error instanceof MessageDroppedError ? of(stop(completed(), { type: 'failed', reason: error.message, error })) : throwError(() => error),
      ),
    );
  });
}
