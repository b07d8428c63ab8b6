import { last, map, type Observable, takeWhile } from 'rxjs';
import { type Agent, type ChatOptions, configRules, parseConfig } from '@rxagents/core';
import { z } from 'zod';
import { PatternFailedError } from './errors/PatternFailedError';
import type { ExecutionModel } from './ExecutionModel';
import type { ExecutionResult } from './ExecutionResult';
import { runModel } from './runModel';

/**
 * Options of a {@link ComposedAgent}.
 *
 * @remarks
 * `name`, `role` and `goal` are the agent description a supervisor sees, as on any `Agent`.
 *
 * @example
 * ```ts
 * import { defineAgent, invoke$ } from '@rxagents/core';
 * import { Patterns, type ComposedAgentOptions, type ConversationState } from '@rxagents/patterns';
 *
 * const pro = defineAgent('pro', async () => 'Yes.');
 * const con = defineAgent('con', async () => 'No.');
 * // Cut the debate short after four messages, whatever maxRounds says.
 * const options: ComposedAgentOptions<ConversationState> = {
 *   role: 'Debate panel',
 *   stopWhen: (snapshot) => snapshot.state.messages.length >= 4,
 * };
 * const panel = Patterns.debate({ agents: [pro, con], maxRounds: 10 }).asAgent('panel', options);
 * invoke$(panel, 'Adopt the new framework?').subscribe(console.log); // the four-message transcript
 * ```
 */
export interface ComposedAgentOptions<T> {
  readonly name?: string;
  readonly role?: string;
  readonly goal?: string;
  /**
   * Watches every snapshot of the sub-task (the live projection); returning true stops it there: the
   * sub-task is cancelled and its current output is the reply (status `completed`, reason
   * `stopped by observer`).
   */
  readonly stopWhen?: (snapshot: ExecutionResult<T>) => boolean;
}

/**
 * The zod schema of {@link ComposedAgentOptions}.
 *
 * @remarks
 * Strict: an unknown key is an error. `new ComposedAgent(...)`, `asAgent()` and `AgentRef.composed()`
 * validate with it.
 *
 * @example
 * ```ts
 * import { ComposedAgentOptionsSchema } from '@rxagents/patterns';
 *
 * console.log(ComposedAgentOptionsSchema.safeParse({ role: 'Debate panel' }).success); // true
 * console.log(ComposedAgentOptionsSchema.safeParse({ stopwhen: () => true }).success); // false
 * ```
 */
export const ComposedAgentOptionsSchema = z.strictObject({
  name: z.string({ error: 'must be a string' }).optional(),
  role: z.string({ error: 'must be a string' }).optional(),
  goal: z.string({ error: 'must be a string' }).optional(),
  stopWhen: configRules.function<(snapshot: ExecutionResult<unknown>) => boolean>().optional(),
});

const ComposedArgumentsSchema = z.strictObject({
  id: configRules.id(),
  model: z.custom<ExecutionModel<unknown>>((value) => typeof value === 'object' && value !== null && typeof (value as ExecutionModel<unknown>).route === 'function', {
    error: 'must be an ExecutionModel (build one with ExecutionModel.create or a builder\'s build())',
  }),
  options: ComposedAgentOptionsSchema,
});

/**
 * A whole pattern run as one agent, so a supervisor can dispatch a debate or a vote as a sub-task.
 *
 * @remarks
 * `chat(input)` runs the model on its own backend (over a channel when it was built with
 * `.overChannel()`; the caller neither knows nor cares) and replies with the pattern's output. A
 * `completed` run replies with the output as is; `escalated` and `deadlocked` runs reply with it
 * prefixed by `[status: reason]`, so the caller sees that nobody decided; a `failed` run errors with
 * {@link PatternFailedError}. Cancelling the call (its `AbortSignal`, an unsubscription, a timeout)
 * cancels the whole sub-task. `snapshots$(input)` gives every snapshot of a run, and `stopWhen` lets the
 * caller stop a sub-task on what it observes.
 *
 * @example
 * ```ts
 * import { defineAgent, invoke$ } from '@rxagents/core';
 * import { ComposedAgent, Patterns } from '@rxagents/patterns';
 *
 * const optimist = defineAgent('optimist', async () => 'It will work.');
 * const skeptic = defineAgent('skeptic', async () => 'It might not.');
 * const debate = Patterns.debate({ agents: [optimist, skeptic], maxRounds: 2 }).overChannel().build();
 * const panel = new ComposedAgent('panel', debate, { role: 'Debate panel' });
 * invoke$(panel, 'Adopt the new framework?').subscribe(console.log);
 * ```
 */
export class ComposedAgent<T> implements Agent {
  readonly id: string;
  readonly name?: string;
  readonly role?: string;
  readonly goal?: string;
  /** The pattern this agent runs. */
  readonly model: ExecutionModel<T>;
  private readonly stopWhen: ((snapshot: ExecutionResult<T>) => boolean) | undefined;

  /** @throws `ConfigError` for a blank id, a model that is not one, or a bad option. */
  constructor(id: string, model: ExecutionModel<T>, options: ComposedAgentOptions<T> = {}) {
    parseConfig(ComposedArgumentsSchema, { id, model, options }, 'ComposedAgent');
    this.id = id;
    if (options.name !== undefined) this.name = options.name;
    if (options.role !== undefined) this.role = options.role;
    if (options.goal !== undefined) this.goal = options.goal;
    this.model = model;
    this.stopWhen = options.stopWhen;
  }

  /** Every snapshot of one run on `input`, ending with the final result (honours `stopWhen`). */
  snapshots$(input: string): Observable<ExecutionResult<T>> {
    const runs = runModel(this.model, input);
    const stopWhen = this.stopWhen;
    if (stopWhen === undefined) return runs;
    return runs.pipe(
      map((snapshot): ExecutionResult<T> => {
        if (snapshot.status !== 'running') return snapshot;
        const stop: unknown = stopWhen(snapshot);
        if (typeof stop !== 'boolean') throw new TypeError(`ComposedAgent "${this.id}": stopWhen gave ${String(stop)}; return true to stop the sub-task, false to go on`);
        return stop ? { ...snapshot, status: 'completed', reason: 'stopped by observer' } : snapshot;
      }),
      takeWhile((snapshot) => snapshot.status === 'running', true),
    );
  }

  /** The final result of one run on `input`. */
  execute$(input: string): Observable<ExecutionResult<T>> {
    return this.snapshots$(input).pipe(last());
  }

  /** Runs the pattern and replies with its output; see the class notes for non-completed outcomes. */
  chat(input: string, _options: ChatOptions): Observable<string> {
    return this.execute$(input).pipe(
      map((result) => {
        if (result.status === 'failed') throw new PatternFailedError(result.pattern, result.reason ?? 'unknown reason', result.error);
        return result.status === 'completed' ? result.output : `[${result.status}: ${result.reason ?? ''}] ${result.output}`;
      }),
    );
  }
}
