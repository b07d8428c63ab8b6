import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { type Agent, configRules } from '@rxagents/core';
import { z } from 'zod';
import type { AgentRef } from '../agents/AgentRef';
import { agentList, agentRule } from '../agents/agentList';
import { channelBackend, type ChannelBackendOptions, channelSettings } from '../channel/ChannelBackend';
import { assembleModel, attachBackend } from '../execution/assembleModel';
import type { ConversationStrategy } from '../channel/ChannelExecutionStrategy';
import type { PostedMessage } from '../conversation/ConversationState';
import { parseOnce } from './validated';
import type { ConversationState } from '../conversation/ConversationState';
import * as ConversationStates from '../conversation/conversationStates';
import { type ConversationPrompt, conversationPrompt } from '../conversation/conversationPrompt';
import type { JudgeConvergenceOptions } from '../termination/conversationTerminations';
import type { ExecutionModel } from '../execution/ExecutionModel';
import { PatternBuilder } from './PatternBuilder';
import type { TerminationCondition } from '../termination/TerminationCondition';
import * as Terminations from '../termination/terminationConditions';
import * as TurnPolicies from '../conversation/turnPolicies';

/**
 * Options of {@link Patterns.debate}.
 *
 * @remarks
 * Only `agents` is required; the rest is validated by {@link DebateOptionsSchema} when the builder is
 * made, so a bad value throws a `ConfigError` before any agent is called.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns, type DebateOptions } from '@rxagents/patterns';
 *
 * const options: DebateOptions = {
 *   agents: [defineAgent('pro', async () => 'Monorepo: one version.'), defineAgent('con', async () => 'Polyrepo: clear ownership.')],
 *   maxRounds: 3,
 *   judge: defineAgent('judge', async () => 'CONTINUE: no agreement yet.'),
 *   judgeOptions: { predicate: (verdict) => verdict.startsWith('AGREED') },
 *   agentTimeout: 20_000,
 * };
 * const result = await Patterns.debate(options).execute('Monorepo or polyrepo?');
 * console.log(result.status, result.iterations); // completed 3
 * ```
 */
export interface DebateOptions {
  /** The debaters, in speaking order. At least two. */
  readonly agents: readonly AgentRef[];
  /** Rounds (every debater speaks once per round) before the debate ends. Default 5. */
  readonly maxRounds?: number;
  /** Asked after every round whether the debaters converged; a yes ends the debate. */
  readonly judge?: Agent;
  /** How the judge is asked and read (`predicate`, `prompt`, `timeout`). Only with a `judge`. */
  readonly judgeOptions?: Omit<JudgeConvergenceOptions, 'maxIterations' | 'scheduler'>;
  /** What a debater is asked. Default {@link conversationPrompt}. */
  readonly prompt?: ConversationPrompt;
  /** Per-turn limit in ms; up to `MAX_DELAY_MS` (about 24.8 days), `Infinity` for none. */
  readonly agentTimeout?: number;
  /** Whole-debate limit in ms; up to `MAX_DELAY_MS` (about 24.8 days), `Infinity` for none. */
  readonly timeout?: number;
  /** The clock. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * The zod schema of {@link DebateOptions}.
 *
 * @remarks
 * Strict: an unknown key is an error. Parsing applies the default `maxRounds` (5).
 *
 * @example
 * ```ts
 * import { defineAgent, parseConfig } from '@rxagents/core';
 * import { DebateOptionsSchema } from '@rxagents/patterns';
 *
 * const pro = defineAgent('pro', async () => 'Yes.');
 * const con = defineAgent('con', async () => 'No.');
 * // Limits from a JSON settings file; the agents come from code.
 * const fromFile = JSON.parse('{ "agentTimeout": 20000, "timeout": 120000 }');
 * const settings = parseConfig(DebateOptionsSchema, { ...fromFile, agents: [pro, con] }, 'Debate options');
 * console.log(settings.maxRounds, settings.agentTimeout); // 5 20000
 * ```
 */
export const DebateOptionsSchema = z.strictObject({
  agents: agentList<AgentRef>(2, 'must list at least two debaters'),
  maxRounds: configRules.positiveInt().default(5),
  judge: agentRule().optional(),
  judgeOptions: z.strictObject({
    predicate: configRules.function<(verdict: string, state: ConversationState) => boolean>().optional(),
    prompt: configRules.function<(state: ConversationState) => string>().optional(),
    timeout: configRules.timeoutMs().optional(),
  }).optional(),
  prompt: configRules.function<ConversationPrompt>().optional(),
  agentTimeout: configRules.timeoutMs().optional(),
  timeout: configRules.timeoutMs().optional(),
  scheduler: configRules.scheduler().optional(),
}).superRefine((options, ctx) => {
  // Without a judge nothing reads judgeOptions: a forgotten `judge` would run every round unjudged.
  if (options.judgeOptions !== undefined && options.judge === undefined) {
    ctx.addIssue({ code: 'custom', path: ['judgeOptions'], input: options.judgeOptions, message: 'needs a judge to ask (set judge, or leave judgeOptions out)' });
  }
});

type DebateSettings = z.output<typeof DebateOptionsSchema>;

/**
 * A debate: debaters speak in turn, round after round, each seeing the transcript so far.
 *
 * @remarks
 * Its state is a {@link ConversationState} in both modes. The termination condition is derived from
 * the settings: `maxRounds` becomes
 * `maxIterations`, `judge` becomes `judgeConvergence`, combined with `or` (the judge is asked first, so
 * it can still call convergence in the last round); both read the conversation state, so no cast bridges
 * two state types. Directly, each driver iteration is one round: the debaters are called one after
 * another, each prompt built from the transcript so far. `.overChannel()` runs it as a Conversation with
 * round-robin turns: replies travel on a `StreamingChannel` and the transcript is the channel's fold.
 * Either way a debater's failure ends the debate as `failed`. The output is the transcript.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns } from '@rxagents/patterns';
 *
 * const pro = defineAgent('pro', async () => 'Remote work raises output.');
 * const con = defineAgent('con', async () => 'It weakens mentoring.');
 * const judge = defineAgent('judge', async () => 'CONVERGED: both see trade-offs.');
 * const result = await Patterns.debate({ agents: [pro, con], maxRounds: 3, judge }).overChannel().execute('Remote work?');
 * console.log(result.status, result.iterations); // completed 1
 * ```
 */
export class DebateBuilder extends PatternBuilder<ConversationState> {
  readonly #settings: DebateSettings;
  readonly #channel: ChannelBackendOptions<PostedMessage> | undefined;

  /** Validates `options`; prefer {@link Patterns.debate}. @throws `ConfigError`. */
  constructor(options: DebateOptions, channel?: ChannelBackendOptions<PostedMessage>) {
    super();
    this.#settings = parseOnce(DebateOptionsSchema, options, 'Debate options', (parsed) => ({ ...parsed, agents: [...options.agents] }));
    this.#channel = channel === undefined ? undefined : channelSettings(channel, '.overChannel() options');
  }

  /** The same debate, run as a Conversation with round-robin turns over a `StreamingChannel`. */
  overChannel(options: ChannelBackendOptions<PostedMessage> = {}): DebateBuilder {
    return new DebateBuilder(this.#settings, channelSettings(options, '.overChannel() options'));
  }

  /** The conversation condition derived from `maxRounds` and `judge`. */
  termination(): TerminationCondition<ConversationState> {
    const { maxRounds, judge, judgeOptions, scheduler } = this.#settings;
    const rounds = Terminations.maxIterations<ConversationState>(maxRounds);
    if (judge === undefined) return rounds;
    const converged = Terminations.judgeConvergence(judge, { ...judgeOptions, ...(scheduler === undefined ? {} : { scheduler }) });
    return Terminations.or(converged, rounds);
  }

  build(): ExecutionModel<ConversationState> {
    const { agents, prompt = conversationPrompt, agentTimeout, timeout, scheduler = asyncScheduler } = this.#settings;
    const ids = agents.map((agent) => agent.id);
    const termination = this.termination();
    const model = assembleModel<ConversationState>({
      pattern: 'debate',
      agents,
      initialState: (input) => ConversationStates.initial(input, ids),
      route: () => agents,
      prompt: (state, agent) => prompt(state, agent.id),
      aggregate: (state, result) => (result.success ? ConversationStates.fold(state, { speaker: result.agentId, content: result.output, at: result.startedAt + result.durationMs }) : state),
      termination,
      output: ConversationStates.transcript,
      failOnAgentError: true,
      concurrency: 1,
      scheduler,
      ...(agentTimeout === undefined ? {} : { agentTimeout }),
      ...(timeout === undefined ? {} : { timeout }),
    });
    if (this.#channel === undefined) return model;
    const strategy: ConversationStrategy<ConversationState> = { kind: 'conversation', turnPolicy: TurnPolicies.roundRobin(), termination, project: (state) => state, prompt };
    return attachBackend(model, channelBackend(strategy, this.#channel));
  }
}
