import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { configRules, parseConfig } from '@rxagents/core';
import { z } from 'zod';
import type { AgentRef } from './AgentRef';
import { agentList } from './agentList';
import type { AgentResult } from './AgentResult';
import type { ExecutionBackend } from './ExecutionBackend';
import type { TerminationCondition } from './TerminationCondition';

/**
 * Everything a backend needs to run a pattern: agents, the five phases' functions, termination, backend.
 *
 * @remarks
 * The {@link OrchestratedDriver} loops over the phases: **route** (`route` picks the agents of this
 * iteration; none left ends the run), **activate** (`prompt` builds each agent's input, at the moment
 * its call starts, so with `concurrency` 1 an agent sees the results aggregated before it), **dispatch**
 * (calls through core's `reply`, at most `concurrency` at once, each bounded by `agentTimeout`, all by
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
 *   aggregate: (state, result) => (result.ok ? Number(result.output) : state),
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
 *   aggregate: (state, result) => (result.ok ? result.output : state), termination: TerminationCondition.maxIterations(1), output: (state) => state,
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

/** Builds validated {@link ExecutionModel}s. */
export const ExecutionModel = {
  /**
   * Validates a definition, applies the defaults (`concurrency` 1, `failOnAgentError` false,
   * `asyncScheduler`) and freezes the model.
   *
   * @throws `ConfigError` naming the field, e.g. `ExecutionModel: concurrency must be a positive integer, got 0`.
   *
   * @example
   * ```ts
   * import { defineAgent } from '@rxagents/core';
   * import { ExecutionModel, TerminationCondition } from '@rxagents/patterns';
   *
   * const echo = defineAgent('echo', async (input) => input);
   * const model = ExecutionModel.create<string>({
   *   pattern: 'echo-once',
   *   agents: [echo],
   *   initialState: (input) => input,
   *   route: () => [echo],
   *   prompt: (state) => state,
   *   aggregate: (state, result) => (result.ok ? result.output : state),
   *   termination: TerminationCondition.maxIterations(1),
   *   output: (state) => state,
   * });
   * ```
   */
  create<T>(definition: ExecutionModelDefinition<T>): ExecutionModel<T> {
    const parsed = parseConfig(ExecutionModelSchema, definition, 'ExecutionModel');
    const { pattern, output, deadlocked } = definition;
    const model: ExecutionModel<T> = {
      ...definition,
      // A forgotten `return` here would give an undefined output or a silent `completed`: fail instead.
      output: (state) => {
        const text: unknown = output(state);
        if (typeof text !== 'string') throw new TypeError(`${pattern}: output gave ${String(text)}; return the run's answer as a string`);
        return text;
      },
      ...(deadlocked === undefined
        ? {}
        : {
            deadlocked: (state: T) => {
              const stuck: unknown = deadlocked(state);
              if (typeof stuck !== 'boolean') throw new TypeError(`${pattern}: deadlocked gave ${String(stuck)}; return true or false`);
              return stuck;
            },
          }),
      failOnAgentError: parsed.failOnAgentError,
      concurrency: parsed.concurrency,
      scheduler: parsed.scheduler,
      agents: Object.freeze([...definition.agents]),
    };
    return Object.freeze(model);
  },

  /**
   * A copy of `model` that runs on `backend`.
   *
   * @example
   * ```ts
   * // no-run: a fragment: `model` is any model made with ExecutionModel.create
   * import { ExecutionModel, OrchestratedDriver, type ExecutionModel as Model } from '@rxagents/patterns';
   *
   * declare const model: Model<string>;
   * const direct = ExecutionModel.withBackend(model, OrchestratedDriver);
   * ```
   */
  withBackend<T>(model: ExecutionModel<T>, backend: ExecutionBackend<T>): ExecutionModel<T> {
    return Object.freeze({ ...model, backend });
  },
} as const;
