import { concat, defer, from, map, mergeMap, type Observable, of, type SchedulerLike, takeUntil, takeWhile, tap } from 'rxjs';
import { type AgentCallOptions, type AgentCallResult, AgentTimeoutError, callAgent, type RunContext } from '@rxagents/core';
import type { AgentRef } from '../agents/AgentRef';
import type { AgentResult } from './AgentResult';
import { ExecutionTimeoutError } from '../errors/ExecutionTimeoutError';
import { oneAfterAnother } from './oneAfterAnother';
import { type RunDeadline, untilDeadline } from './RunDeadline';

/** How {@link dispatchAgents} calls a batch of agents. */
export interface DispatchOptions {
  /** The pattern name, for timeout errors. */
  readonly pattern: string;
  readonly concurrency: number;
  readonly agentTimeout?: number | undefined;
  /** The run's overall limit (ms) and the scheduler time it ends at. */
  readonly overall?: RunDeadline | undefined;
  /** Stop dispatching after the first failed result (it is still emitted). */
  readonly failFast: boolean;
  readonly scheduler: SchedulerLike;
  /** The run each call reports into (the pattern's node), when somebody watches the run. */
  readonly run?: RunContext | undefined;
}

/**
 * Calls every agent (at most `concurrency` at once) and emits one {@link AgentResult} per agent, in
 * completion order. Failures and timeouts become results; the overall deadline records every agent
 * still working (with its input and start) or not yet started (input `''`) as timed out, so nothing
 * hangs and no timer outlives the batch. `promptOf` runs when an agent's call starts.
 */
export function dispatchAgents(refs: readonly AgentRef[], promptOf: (ref: AgentRef) => string, options: DispatchOptions): Observable<AgentResult> {
  const { scheduler, overall, agentTimeout, run } = options;
  const callOptions: AgentCallOptions = { scheduler, ...(agentTimeout === undefined ? {} : { timeout: agentTimeout }), ...(run === undefined ? {} : { run }) };
  const stopOnFailure = takeWhile<AgentResult>((result) => result.success || !options.failFast, true);
  // Without an overall deadline nothing needs to know which calls started or settled: no per-call bookkeeping.
  if (overall === undefined) {
    const call = (ref: AgentRef) => callOne(ref, promptOf, options.pattern, callOptions, scheduler);
    if (options.concurrency === 1) {
      const stops = (result: AgentResult): boolean => !result.success && options.failFast;
      return oneAfterAnother(refs.length, (index) => call(refs[index] as AgentRef), withTimedOut, stops);
    }
    return defer(() => from(refs).pipe(mergeMap(call, options.concurrency), map(withTimedOut), stopOnFailure));
  }
  return defer(() => {
    const started = new Map<number, { readonly input: string; readonly startedAt: number }>();
    const settled = new Set<number>();
    const calls$ = from(refs.map((ref, index) => ({ ref, index }))).pipe(
      mergeMap(
        ({ ref, index }) =>
          callOne(ref, promptOf, options.pattern, callOptions, scheduler, (input, startedAt) => started.set(index, { input, startedAt })).pipe(tap(() => settled.add(index))),
        options.concurrency,
      ),
      map(withTimedOut),
      stopOnFailure,
    );
    const remaining = overall.endsAt - scheduler.now();
    const bounded$ = remaining > 0 ? calls$.pipe(takeUntil(untilDeadline(overall, scheduler))) : of<never>();
    return concat(
      bounded$,
      defer(() => {
        const now = scheduler.now();
        return from(
          refs.flatMap((ref, index): AgentResult[] => {
            if (settled.has(index)) return [];
            const { input, startedAt } = started.get(index) ?? { input: '', startedAt: now };
            const error = new ExecutionTimeoutError(options.pattern, overall.timeoutMs, ref.id);
            return [{ success: false, agentId: ref.id, input, error, timedOut: true, startedAt, durationMs: now - startedAt }];
          }),
        );
      }),
    ).pipe(stopOnFailure);
  });
}

/** One call, its outcome as a result; `onStart` hears the prompt and the start time. */
function callOne(
  ref: AgentRef,
  promptOf: (ref: AgentRef) => string,
  pattern: string,
  callOptions: AgentCallOptions,
  scheduler: SchedulerLike,
  onStart?: (input: string, startedAt: number) => void,
): Observable<AgentCallResult> {
  return defer(() => {
    const prompt: unknown = promptOf(ref);
    // A bug in the pattern's prompt, not the agent's failure: it ends the run rather than being recorded.
    if (typeof prompt !== 'string') throw new TypeError(`${pattern}: the prompt for ${JSON.stringify(ref.id)} gave ${String(prompt)}; return the text to send`);
    onStart?.(prompt, scheduler.now());
    return callAgent(ref, prompt, callOptions);
  });
}

/** A call's outcome as a result: a failure says whether it was the agent's timeout. */
function withTimedOut(result: AgentCallResult): AgentResult {
  return result.success ? result : { ...result, timedOut: result.error instanceof AgentTimeoutError };
}
