import { last, map, type Observable, takeWhile } from 'rxjs';
import { type Agent, type ChatOptions, configRules, observeRun, parseConfig, type RunContext, type RunEvent, type RunEventsOptions, traceRun } from '@rxagents/core';
import { z } from 'zod';
import { PatternFailedError } from '../errors/PatternFailedError';
import type { ExecutionModel } from '../execution/ExecutionModel';
import type { ExecutionResult } from '../execution/ExecutionResult';
import { emitTermination, describeResult } from '../execution/patternEvents';
import { patternInput } from '../builders/patternInput';
import { EventsOptionsSchema, type RunOptions, RunOptionsSchema } from '../execution/RunOptions';
import { runModel } from '../execution/runModel';
import { checkChatCall } from './checkChatCall';

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
 * caller stop a sub-task on what it observes. When the caller watches its run (the call's
 * `ChatOptions.run`, as a pattern's `events$` or a handoff gives it), the sub-task reports into it, under
 * the call: its `run-start`, its agents' calls and tokens, its messages, rounds and termination, and its
 * `run-end`, with no code of yours. `events$(input)` runs it as a run of its own.
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

  /**
   * Every snapshot of one run on `input`, ending with the final result (honours `stopWhen`). With
   * `{ run }`, the run is reported into it as a node named after the pattern.
   */
  snapshots$(input: string, options?: RunOptions): Observable<ExecutionResult<T>> {
    patternInput(input);
    if (options === undefined) return this.#snapshots(input, undefined);
    const { run } = parseConfig(RunOptionsSchema, options, 'run options');
    return traceRun(run, this.model.pattern, input, (node) => this.#snapshots(input, node), describeResult);
  }

  /** The final result of one run on `input`; with `{ run }`, reported into it (see {@link ComposedAgent.snapshots$}). */
  execute$(input: string, options?: RunOptions): Observable<ExecutionResult<T>> {
    return this.snapshots$(input, options).pipe(last());
  }

  /**
   * One run on `input` as its run events: `run-start` named after the pattern, every agent call with its
   * tokens, `message`, `round-end`, `termination`, then `run-end`. Cold; unsubscribing cancels the run.
   *
   * With `store` and `runId` the run is durable: journaled in the store, and resumed from its journal when the store already holds `runId` (finished agent calls are answered from it; see `docs/durable.md`).
   *
   * @example
   * ```ts
   * import { defineAgent } from '@rxagents/core';
   * import { Patterns } from '@rxagents/patterns';
   *
   * const panel = Patterns.voting({ agents: [defineAgent('a', async () => 'yes'), defineAgent('b', async () => 'yes')] }).asAgent('panel');
   * panel.events$('Ship it?').subscribe((event) => {
   *   if (event.type === 'run-end') console.log(event.success, event.output); // true yes
   * });
   * ```
   */
  events$(input: string, options: RunEventsOptions = {}): Observable<RunEvent> {
    patternInput(input);
    const runOptions = parseConfig(EventsOptionsSchema, options, 'ComposedAgent.events$ options');
    return observeRun(this.model.pattern, input, (node) => this.#snapshots(input, node).pipe(last()), { ...runOptions, scheduler: this.model.scheduler, describe: describeResult });
  }

  /**
   * Runs the pattern and replies with its output; see the class notes for non-completed outcomes. With
   * `options.run`, the pattern reports into it under this call.
   */
  chat(input: string, options: ChatOptions): Observable<string> {
    checkChatCall(this.id, input, options);
    const { run } = options;
    return (run === undefined ? this.execute$(input) : this.execute$(input, { run })).pipe(
      map((result) => {
        if (result.status === 'failed') throw new PatternFailedError(result.pattern, result.reason ?? 'unknown reason', result.error);
        return result.status === 'completed' ? result.output : `[${result.status}: ${result.reason ?? ''}] ${result.output}`;
      }),
    );
  }

  #snapshots(input: string, run: RunContext | undefined): Observable<ExecutionResult<T>> {
    const runs = runModel(this.model, input, run);
    const stopWhen = this.stopWhen;
    if (stopWhen === undefined) return runs;
    return runs.pipe(
      map((snapshot): ExecutionResult<T> => {
        if (snapshot.status !== 'running') return snapshot;
        const stop: unknown = stopWhen(snapshot);
        if (typeof stop !== 'boolean') throw new TypeError(`ComposedAgent "${this.id}": stopWhen gave ${String(stop)}; return true to stop the sub-task, false to go on`);
        if (!stop) return snapshot;
        const decision = { type: 'complete', reason: 'stopped by observer' } as const;
        if (run !== undefined) emitTermination(run, decision);
        return { ...snapshot, status: 'completed', reason: decision.reason };
      }),
      takeWhile((snapshot) => snapshot.status === 'running', true),
    );
  }
}
