import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { configRules } from '@rxagents/core';
import { z } from 'zod';
import type { AgentRef } from '../agents/AgentRef';
import { agentList } from '../agents/agentList';
import type { AgentResult } from '../execution/AgentResult';
import { channelBackend, type ChannelBackendOptions, channelSettings } from '../channel/ChannelBackend';
import { assembleModel, attachBackend } from '../execution/assembleModel';
import type { BarrierStrategy } from '../channel/ChannelExecutionStrategy';
import { parseOnce } from './validated';
import type { ExecutionModel } from '../execution/ExecutionModel';
import { PatternBuilder } from './PatternBuilder';
import * as Terminations from '../termination/terminationConditions';

/**
 * Options of {@link Patterns.parallel}.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns, type ParallelOptions } from '@rxagents/patterns';
 *
 * const options: ParallelOptions = {
 *   agents: [defineAgent('legal', async () => 'No blockers.'), defineAgent('security', async () => 'Needs a pen test.')],
 *   prompt: (input, agentId) => `You review for ${agentId}. ${input}`,
 *   merge: (results) => results.map((r) => (r.success ? `- ${r.agentId}: ${r.output}` : `- ${r.agentId}: no answer`)).join('\n'),
 *   timeout: 60_000,
 * };
 * console.log((await Patterns.parallel(options).execute('Review the launch plan.')).output);
 * // - legal: No blockers.
 * // - security: Needs a pen test.
 * ```
 */
export interface ParallelOptions {
  /** The contributors. At least one. */
  readonly agents: readonly AgentRef[];
  /** What a contributor is asked. Default: the input as is. */
  readonly prompt?: (input: string, agentId: string) => string;
  /** Joins the contributions (in agent order) into the output. Default: `id: output` lines. */
  readonly merge?: (results: readonly AgentResult[]) => string;
  /** How many contributors work at once. Default: all. */
  readonly concurrency?: number;
  /** Per-contributor limit in ms; a late one is recorded as a timed-out result; up to `MAX_DELAY_MS` (about 24.8 days), `Infinity` for none. */
  readonly agentTimeout?: number;
  /** Overall limit in ms; contributors still working are recorded as timed out and the gate opens; up to `MAX_DELAY_MS` (about 24.8 days), `Infinity` for none. */
  readonly timeout?: number;
  readonly scheduler?: SchedulerLike;
}

/**
 * The zod schema of {@link ParallelOptions}.
 *
 * @remarks
 * Strict: an unknown key is an error.
 *
 * @example
 * ```ts
 * import { defineAgent, parseConfig } from '@rxagents/core';
 * import { ParallelOptionsSchema } from '@rxagents/patterns';
 *
 * const reviewers = [defineAgent('legal', async () => 'ok'), defineAgent('security', async () => 'ok')];
 * // Limits from JSON; the agents come from code.
 * const limits = JSON.parse('{ "concurrency": 1, "agentTimeout": 15000 }');
 * const settings = parseConfig(ParallelOptionsSchema, { ...limits, agents: reviewers }, 'Parallel options');
 * console.log(settings.concurrency, settings.agentTimeout); // 1 15000
 * ```
 */
export const ParallelOptionsSchema = z.strictObject({
  agents: agentList<AgentRef>(1, 'must list at least one agent'),
  prompt: configRules.function<(input: string, agentId: string) => string>().optional(),
  merge: configRules.function<(results: readonly AgentResult[]) => string>().optional(),
  concurrency: configRules.positiveInt().optional(),
  agentTimeout: configRules.timeoutMs().optional(),
  timeout: configRules.timeoutMs().optional(),
  scheduler: configRules.scheduler().optional(),
});

/**
 * The state of a parallel run: the input and each contributor's result, in agent order.
 *
 * @remarks
 * Failed and timed-out contributors are in `contributions` too, with `success: false`.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns, type ParallelState } from '@rxagents/patterns';
 *
 * const agents = [defineAgent('legal', async () => 'No blockers.'), defineAgent('security', async () => 'Needs a pen test.')];
 * const progress = (state: ParallelState): string => `${state.contributions.length}/${agents.length} in: ${state.contributions.map((c) => c.agentId).join(', ')}`;
 * Patterns.parallel({ agents }).snapshots$('Review the plan').subscribe(({ status, state }) => console.log(status, progress(state)));
 * // running 1/2 in: legal
 * // running 2/2 in: legal, security
 * // completed 2/2 in: legal, security
 * ```
 */
export interface ParallelState {
  readonly input: string;
  readonly contributions: readonly AgentResult[];
}

const defaultMerge = (results: readonly AgentResult[]): string =>
  results.map((result) => `${result.agentId}: ${result.success ? result.output : `(failed: ${result.error.message})`}`).join('\n');

/**
 * Parallel work behind a barrier: every agent works on the input at once; the run ends when all have answered.
 *
 * @remarks
 * Directly, the driver calls every agent concurrently in one iteration. `.overChannel()` runs it as a
 * Barrier: each contribution is posted on the channel and the gate opens once every contributor has
 * written (or been recorded as timed out), so a barrier waits for its slowest contributor; a result
 * someone else posts on the channel is no contribution. Contributions are kept in agent order; failures
 * are recorded, not fatal.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns } from '@rxagents/patterns';
 *
 * const legal = defineAgent('legal', async () => 'No blockers.');
 * const security = defineAgent('security', async () => 'Needs a pen test.');
 * const result = await Patterns.parallel({ agents: [legal, security] }).overChannel().execute('Review the launch plan');
 * console.log(result.output);
 * ```
 */
export class ParallelBuilder extends PatternBuilder<ParallelState> {
  readonly #settings: z.output<typeof ParallelOptionsSchema>;
  readonly #channel: ChannelBackendOptions<AgentResult> | undefined;

  /** Validates `options`; prefer {@link Patterns.parallel}. @throws `ConfigError`. */
  constructor(options: ParallelOptions, channel?: ChannelBackendOptions<AgentResult>) {
    super();
    this.#settings = parseOnce(ParallelOptionsSchema, options, 'Parallel options', (parsed) => ({ ...parsed, agents: [...options.agents] }));
    this.#channel = channel === undefined ? undefined : channelSettings(channel, '.overChannel() options');
  }

  /** The same work as a Barrier over a `StreamingChannel`. */
  overChannel(options: ChannelBackendOptions<AgentResult> = {}): ParallelBuilder {
    return new ParallelBuilder(this.#settings, channelSettings(options, '.overChannel() options'));
  }

  build(): ExecutionModel<ParallelState> {
    const { agents, prompt, merge = defaultMerge, concurrency, agentTimeout, timeout } = this.#settings;
    const order = new Map(agents.map((agent, index) => [agent.id, index] as const));
    const model = assembleModel<ParallelState>({
      pattern: 'parallel',
      agents,
      initialState: (input) => ({ input, contributions: [] }),
      route: () => agents,
      prompt: (state, agent) => (prompt === undefined ? state.input : prompt(state.input, agent.id)),
      aggregate: (state, result) => ({
        ...state,
        contributions: [...state.contributions, result].sort((a, b) => (order.get(a.agentId) ?? 0) - (order.get(b.agentId) ?? 0)),
      }),
      termination: Terminations.maxIterations(1),
      output: (state) => {
        const merged: unknown = merge(state.contributions);
        if (typeof merged !== 'string') throw new TypeError(`parallel: merge gave ${String(merged)}; return the output text`);
        return merged;
      },
      failOnAgentError: false,
      concurrency: concurrency ?? agents.length,
      scheduler: this.#settings.scheduler ?? asyncScheduler,
      ...(agentTimeout === undefined ? {} : { agentTimeout }),
      ...(timeout === undefined ? {} : { timeout }),
    });
    if (this.#channel === undefined) return model;
    const strategy: BarrierStrategy = {
      kind: 'barrier',
      ...(concurrency === undefined ? {} : { concurrency }),
      ...(agentTimeout === undefined ? {} : { agentTimeout }),
      ...(timeout === undefined ? {} : { timeout }),
    };
    return attachBackend(model, channelBackend(strategy, this.#channel));
  }
}
