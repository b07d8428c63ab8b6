import { asyncScheduler, type Observable, type SchedulerLike } from 'rxjs';
import { configRules, type RunContext } from '@rxagents/core';
import { z } from 'zod';
import type { AgentRef } from '../agents/AgentRef';
import { agentList } from '../agents/agentList';
import type { AgentResult } from './AgentResult';
import type { ExecutionResult } from './ExecutionResult';
import type { TerminationCondition } from '../termination/TerminationCondition';

/**
 * Everything a backend needs to run a pattern: agents, the five phases' functions, termination, backend.
 *
 * @remarks
 * The {@link OrchestratedDriver} loops over the phases: **route** (`route` picks the agents of this
 * iteration; none left ends the run), **activate** (`prompt` builds each agent's input, at the moment
 * its call starts, so with `concurrency` 1 an agent sees the results aggregated before it), **dispatch**
 * (calls through core's `invoke$`, at most `concurrency` at once, each bounded by `agentTimeout`, all by
 * `timeout`), **aggregate** (`aggregate` folds each result into the state as it arrives) and **check
 * termination** (`termination` on the new snapshot). `backend`, when set, replaces the driver: a
 * pattern's `.overChannel()` sets it. Build one with {@link ExecutionModel.create}, which validates it.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { ExecutionModel, TerminationCondition, runModel } from '@rxagents/patterns';
 *
 * const counter = defineAgent('counter', async (input) => String(Number(input) + 1));
 * const model = ExecutionModel.create<number>({
 *   pattern: 'count-to-three',
 *   agents: [counter],
 *   initialState: (input) => Number(input),
 *   route: () => [counter],
 *   prompt: (state) => String(state),
 *   aggregate: (state, result) => (result.success ? Number(result.output) : state),
 *   termination: TerminationCondition.maxIterations(3),
 *   output: (state) => String(state),
 * });
 * runModel(model, '0').subscribe((result) => console.log(result.status, result.output));
 * ```
 */
export interface ExecutionModel<T> {
  /** The pattern's name, reported in results and errors. */
  readonly pattern: string;
  /** Every agent taking part. */
  readonly agents: readonly AgentRef[];
  /** The state before the first iteration, from the run's input. */
  readonly initialState: (input: string) => T;
  /** Phase 1: the agents of iteration `iteration` (from 0); empty ends the run as `completed`. */
  readonly route: (state: T, iteration: number) => readonly AgentRef[];
  /** Phase 2: what `agent` is asked, built when its call starts. */
  readonly prompt: (state: T, agent: AgentRef, iteration: number) => string;
  /** Phase 4: the state after one more result. */
  readonly aggregate: (state: T, result: AgentResult) => T;
  /** Phase 5: whether to go on after an iteration. */
  readonly termination: TerminationCondition<T>;
  /** The run's answer, read from the final state. */
  readonly output: (state: T) => string;
  /** When it returns true on the final state of a completed run, the status is `deadlocked`. */
  readonly deadlocked?: (state: T) => boolean;
  /** Whether one failed agent result ends the run as `failed` (the rest of the iteration is not dispatched). */
  readonly failOnAgentError: boolean;
  /** How many agents of one iteration run at once. */
  readonly concurrency: number;
  /** Per-call limit in ms; a late agent is recorded as a failed result with `AgentTimeoutError`; up to `MAX_DELAY_MS` (about 24.8 days), `Infinity` for none. */
  readonly agentTimeout?: number;
  /** Whole-run limit in ms; agents still working are recorded with `ExecutionTimeoutError`; up to `MAX_DELAY_MS` (about 24.8 days), `Infinity` for none. */
  readonly timeout?: number;
  /** The clock of every timeout and duration. */
  readonly scheduler: SchedulerLike;
  /** Replaces the orchestrated driver (a channel backend, say). */
  readonly backend?: ExecutionBackend<T>;
}

/**
 * Runs an {@link ExecutionModel} on an input: where and how a pattern's messages travel.
 *
 * @remarks
 * A plain function, the seam between a pattern and its transport. It returns a cold Observable: each
 * subscription is one run, which emits `running` snapshots and then one final {@link ExecutionResult};
 * unsubscribing cancels every agent call in flight and releases everything the run holds. Two ship
 * with the package: {@link OrchestratedDriver} (direct invocation, the default) and the backend made by
 * {@link ChannelBackend} (a `StreamingChannel` per run).
 *
 * `run`, when given, is the run context of the pattern's node (see `PatternBuilder.events$`): a backend
 * passes it to every agent call it makes (`{ run }`) and to the termination condition (the snapshot's
 * `run`), and reports `message`, `round-end` and `termination` events into it. Without it, it reports
 * nothing.
 *
 * @example
 * ```ts
 * import { OrchestratedDriver, type ExecutionBackend } from '@rxagents/patterns';
 * import { tap } from 'rxjs';
 *
 * // A backend that logs every final result, delegating the work to the driver.
 * const logged: ExecutionBackend<unknown> = (model, input) =>
 *   OrchestratedDriver(model, input).pipe(tap((r) => r.status !== 'running' && console.log(r.status)));
 * ```
 */
export type ExecutionBackend<T> = (model: ExecutionModel<T>, input: string, run?: RunContext) => Observable<ExecutionResult<T>>;

/**
 * What {@link ExecutionModel.create} accepts: the model with `failOnAgentError`, `concurrency`, `scheduler` optional.
 *
 * @remarks
 * `create` fills the three in: `concurrency` 1, `failOnAgentError` false, `asyncScheduler`.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { ExecutionModel, TerminationCondition, type ExecutionModelDefinition } from '@rxagents/patterns';
 *
 * const echo = defineAgent('echo', async (input) => input);
 * const definition: ExecutionModelDefinition<string> = {
 *   pattern: 'echo-once', agents: [echo], initialState: (input) => input, route: () => [echo], prompt: (state) => state,
 *   aggregate: (state, result) => (result.success ? result.output : state), termination: TerminationCondition.maxIterations(1), output: (state) => state,
 * };
 * const model = ExecutionModel.create(definition);
 * console.log(model.concurrency, model.failOnAgentError); // 1 false
 * ```
 */
export type ExecutionModelDefinition<T> = Omit<ExecutionModel<T>, 'failOnAgentError' | 'concurrency' | 'scheduler'> &
  Partial<Pick<ExecutionModel<T>, 'failOnAgentError' | 'concurrency' | 'scheduler'>>;

const fn = configRules.function;

/**
 * The zod schema {@link ExecutionModel.create} validates with.
 *
 * @remarks
 * Strict: an unknown key is an error (`agentTimout` would otherwise silently mean no timeout). The
 * functions are checked to be functions, not called; `termination` must have an `evaluate()`; agent ids
 * are unique (the same agent may be listed twice).
 *
 * @example
 * ```ts
 * import { ExecutionModelSchema } from '@rxagents/patterns';
 *
 * // Which fields a half-written definition still lacks or gets wrong.
 * const check = ExecutionModelSchema.safeParse({ pattern: 'draft', agents: [], concurrency: 2 });
 * if (!check.success) console.log(check.error.issues.map((issue) => issue.path.join('.')));
 * // [ 'agents', 'initialState', 'route', 'prompt', 'aggregate', 'termination', 'output' ]
 * ```
 */
export const ExecutionModelSchema = z.strictObject({
  pattern: configRules.id(),
  agents: agentList<AgentRef>(1, 'must list at least one agent', { repeats: 'same-agent' }),
  initialState: fn(),
  route: fn(),
  prompt: fn(),
  aggregate: fn(),
  termination: z.custom<TerminationCondition<unknown>>((value) => typeof (value as TerminationCondition<unknown> | undefined)?.evaluate === 'function', {
    error: 'must be a TerminationCondition (with evaluate())',
  }),
  output: fn(),
  deadlocked: fn().optional(),
  failOnAgentError: z.boolean({ error: 'must be a boolean' }).default(false),
  concurrency: configRules.positiveInt().default(1),
  agentTimeout: configRules.timeoutMs().optional(),
  timeout: configRules.timeoutMs().optional(),
  scheduler: configRules.scheduler().default(asyncScheduler),
  backend: fn().optional(),
});
