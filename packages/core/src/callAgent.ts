import { asyncScheduler, Observable, type SchedulerLike, Subscriber } from 'rxjs';
import type { Agent } from './Agent';
import type { AgentCallResult } from './AgentCallResult';
import { AgentError } from './errors/AgentError';
import { whenRoom } from './events/whenRoom';
import { type AgentCallOptions, checkCall, startCall } from './stream';

/**
 * Calls an agent and emits one {@link AgentCallResult}: its whole reply, or its failure as a value.
 *
 * @remarks
 * {@link invoke$} with the outcome recorded instead of thrown: the Observable emits exactly one result
 * and completes, and never errors because the agent failed or timed out (the `AgentError` or
 * `AgentTimeoutError` is the result's `error`). `startedAt` and `durationMs` are read from
 * `options.scheduler` (default `asyncScheduler`), so a run on `TestScheduler.run` records virtual time.
 * In a paced run, a call that waits for a slow reader before it starts is timed from its start, as its
 * `call-start` event is: the wait is the reader's time, not the agent's.
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
  checkCall(agent, input, options);
  const scheduler = options.scheduler ?? asyncScheduler;
  const run = options.run;
  // The call itself, without an Observable of chunks in between: the recorder is its subscriber, and its
  // time starts when the agent is called.
  const start = (subscriber: Subscriber<AgentCallResult>): void => {
    const recorder = new CallRecorder(subscriber, agent.id, input, scheduler);
    try {
      recorder.add(startCall(recorder, agent, input, options, run));
    } catch (error) {
      recorder.error(error);
    }
  };
  const pace = run?.pace;
  if (pace === undefined) return new Observable<AgentCallResult>(start);
  // A paced call waits for its reader first; the wait is not the agent's time, as in its run's events.
  return new Observable<AgentCallResult>((subscriber) =>
    whenRoom(
      pace,
      subscriber,
      () => start(subscriber),
      (error) => new CallRecorder(subscriber, agent.id, input, scheduler).error(error),
    ),
  );
}

/**
 * Joins one call's chunks and records its outcome. A `Subscriber` of its own rather than `invoke$`'s
 * `reduce` plus `map` and `catchError` (and added to the caller's subscriber, so unsubscribing it stops
 * the call): a handoff hop is mostly this call, and the operators doubled its cost (`pnpm bench handoff`).
 */
class CallRecorder extends Subscriber<string> {
  private output = '';
  private readonly startedAt: number;

  constructor(
    private readonly caller: Subscriber<AgentCallResult>,
    private readonly agentId: string,
    private readonly input: string,
    private readonly scheduler: SchedulerLike,
  ) {
    super();
    caller.add(this);
    this.startedAt = scheduler.now();
  }

  protected override _next(chunk: string): void {
    this.output += chunk;
  }

  protected override _error(error: unknown): void {
    const { agentId, input, startedAt } = this;
    this.unsubscribe();
    this.caller.next({ success: false, agentId, input, error: error instanceof Error ? error : new AgentError(agentId, error), startedAt, durationMs: this.scheduler.now() - startedAt });
    this.caller.complete();
  }

  protected override _complete(): void {
    const { agentId, input, startedAt } = this;
    this.unsubscribe();
    this.caller.next({ success: true, agentId, input, output: this.output, startedAt, durationMs: this.scheduler.now() - startedAt });
    this.caller.complete();
  }
}
