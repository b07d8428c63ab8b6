import { catchError, concat, defer, from, map, mergeMap, type Observable, of, type SchedulerLike, takeUntil, takeWhile, tap } from 'rxjs';
import { AgentTimeoutError, reply } from '@rxagents/core';
import type { AgentRef } from './AgentRef';
import type { AgentResult } from './AgentResult';
import { ExecutionTimeoutError } from './errors/ExecutionTimeoutError';
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
}

/**
 * Calls every agent (at most `concurrency` at once) and emits one {@link AgentResult} per agent, in
 * completion order. Failures and timeouts become results; the overall deadline records every agent
 * still working or not yet started as timed out, so nothing hangs and no timer outlives the batch.
 * `promptOf` runs when an agent's call starts.
 */
export function dispatchAgents(refs: readonly AgentRef[], promptOf: (ref: AgentRef) => string, options: DispatchOptions): Observable<AgentResult> {
  const { scheduler, overall } = options;
  return defer(() => {
    const settled = new Set<number>();
    const calls$ = from(refs.map((ref, index) => ({ ref, index }))).pipe(
      mergeMap(({ ref, index }) => callAgent(ref, promptOf, options).pipe(tap(() => settled.add(index))), options.concurrency),
      takeWhile((result) => result.ok || !options.failFast, true),
    );
    if (overall === undefined) return calls$;
    const remaining = overall.endsAt - scheduler.now();
    const bounded$ = remaining > 0 ? calls$.pipe(takeUntil(untilDeadline(overall, scheduler))) : of<never>();
    return concat(
      bounded$,
      defer(() => {
        const now = scheduler.now();
        return from(
          refs.flatMap((ref, index): AgentResult[] =>
            settled.has(index)
              ? []
              : [{ ok: false, agentId: ref.id, error: new ExecutionTimeoutError(options.pattern, overall.timeoutMs, ref.id), timedOut: true, startedAt: now, finishedAt: now }],
          ),
        );
      }),
    ).pipe(takeWhile((result) => result.ok || !options.failFast, true));
  });
}

function callAgent(ref: AgentRef, promptOf: (ref: AgentRef) => string, options: DispatchOptions): Observable<AgentResult> {
  const { scheduler, agentTimeout } = options;
  return defer(() => {
    const startedAt = scheduler.now();
    const prompt: unknown = promptOf(ref);
    // A bug in the pattern's prompt, not the agent's failure: it ends the run rather than being recorded.
    if (typeof prompt !== 'string') throw new TypeError(`${options.pattern}: the prompt for ${JSON.stringify(ref.id)} gave ${String(prompt)}; return the text to send`);
    return reply(ref, prompt, { scheduler, ...(agentTimeout === undefined ? {} : { timeout: agentTimeout }) }).pipe(
      map((output): AgentResult => ({ ok: true, agentId: ref.id, output, startedAt, finishedAt: scheduler.now() })),
      catchError((error: unknown) =>
        of<AgentResult>({ ok: false, agentId: ref.id, error, timedOut: error instanceof AgentTimeoutError, startedAt, finishedAt: scheduler.now() }),
      ),
    );
  });
}
