import { asyncScheduler, catchError, defer, map, type Observable, of } from 'rxjs';
import type { Agent } from './Agent';
import type { AgentCallResult } from './AgentCallResult';
import { AgentError } from './errors/AgentError';
import { invoke$ } from './invoke';
import type { AgentCallOptions } from './stream';

/**
 * Calls an agent and emits one {@link AgentCallResult}: its whole reply, or its failure as a value.
 *
 * @remarks
 * {@link invoke$} with the outcome recorded instead of thrown: the Observable emits exactly one result
 * and completes, and never errors because the agent failed or timed out (the `AgentError` or
 * `AgentTimeoutError` is the result's `error`). `startedAt` and `durationMs` are read from
 * `options.scheduler` (default `asyncScheduler`), so a run on `TestScheduler.run` records virtual time.
 * Cancellation is the same as {@link stream}: unsubscribing before the result aborts the agent's
 * signal, and then nothing is emitted. Each subscription is a new call.
 *
 * @param agent - The agent to call.
 * @param input - The prompt; recorded as the result's `input`.
 * @param options - Timeout, scheduler, context and metadata, as for {@link stream}.
 * @returns One result, then completion.
 * @throws {@link ConfigError} synchronously when `input` is not a string or an option is unknown or invalid.
 *
 * @example
 * ```ts
 * import { callAgent, defineAgent } from '@rxagents/core';
 * import { forkJoin } from 'rxjs';
 *
 * const fine = defineAgent('fine', async (input) => `done: ${input}`);
 * const broken = defineAgent('broken', async () => {
 *   throw new Error('quota exceeded');
 * });
 * forkJoin([callAgent(fine, 'Work'), callAgent(broken, 'Work', { timeout: 5_000 })]).subscribe((results) => {
 *   for (const result of results) console.log(result.agentId, result.success ? result.output : result.error.message);
 * });
 * // fine done: Work
 * // broken Agent "broken" failed: quota exceeded
 * ```
 */
export function callAgent(agent: Agent, input: string, options: AgentCallOptions = {}): Observable<AgentCallResult> {
  const reply$ = invoke$(agent, input, options);
  const scheduler = options.scheduler ?? asyncScheduler;
  return defer(() => {
    const startedAt = scheduler.now();
    return reply$.pipe(
      map((output): AgentCallResult => ({ success: true, agentId: agent.id, input, output, startedAt, durationMs: scheduler.now() - startedAt })),
      catchError((error: unknown) =>
        of<AgentCallResult>({
          success: false,
          agentId: agent.id,
          input,
          error: error instanceof Error ? error : new AgentError(agent.id, error),
          startedAt,
          durationMs: scheduler.now() - startedAt,
        }),
      ),
    );
  });
}
