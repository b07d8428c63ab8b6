import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { configRules, preview } from '@rxagents/core';
import { z } from 'zod';
import type { AgentRef } from '../agents/AgentRef';
import { agentList } from '../agents/agentList';
import { channelBackend, type ChannelBackendOptions, channelSettings } from '../channel/ChannelBackend';
import { assembleModel, attachBackend } from '../execution/assembleModel';
import type { FanInStrategy } from '../channel/ChannelExecutionStrategy';
import type { AgentResult } from '../execution/AgentResult';
import { parseOnce } from './validated';
import type { ExecutionModel } from '../execution/ExecutionModel';
import { PatternBuilder } from './PatternBuilder';
import * as Terminations from '../termination/terminationConditions';
import type { Vote, VotingAggregation, VotingDecision } from './VotingAggregation';
import * as VotingAggregations from './votingAggregations';

/**
 * Options of {@link Patterns.voting}.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns, VotingAggregation, type VotingOptions } from '@rxagents/patterns';
 *
 * const reviewers = ['alice', 'bob', 'carol'].map((id) => defineAgent(id, async () => 'YES, tests pass'));
 * const options: VotingOptions = {
 *   agents: reviewers,
 *   aggregation: VotingAggregation.unanimous(),
 *   prompt: (question) => `${question}\nStart your reply with YES or NO.`,
 *   parseVote: (reply) => (reply.trim().toUpperCase().startsWith('YES') ? 'yes' : 'no'),
 *   agentTimeout: 10_000,
 * };
 * const result = await Patterns.voting(options).execute('Merge #42?');
 * console.log(result.output, '-', result.reason); // yes - unanimous: yes
 * ```
 */
export interface VotingOptions {
  /** The voters. At least one. */
  readonly agents: readonly AgentRef[];
  /** How votes become a decision. Default {@link VotingAggregation.majority}. */
  readonly aggregation?: VotingAggregation;
  /** Reads a vote from a reply. Default: the first line, trimmed, lower-cased, without final punctuation. An empty choice (an empty reply, say) abstains. */
  readonly parseVote?: (reply: string) => string;
  /** What a voter is asked. Default: the question as is. */
  readonly prompt?: (question: string, voterId: string) => string;
  /** How many voters answer at once. Default: all. */
  readonly concurrency?: number;
  /** Per-voter limit in ms; a late voter abstains (recorded as a timed-out result); up to `MAX_DELAY_MS` (about 24.8 days), `Infinity` for none. */
  readonly agentTimeout?: number;
  /** Whole-vote limit in ms; voters still thinking abstain; up to `MAX_DELAY_MS` (about 24.8 days), `Infinity` for none. */
  readonly timeout?: number;
  readonly scheduler?: SchedulerLike;
}

/**
 * The zod schema of {@link VotingOptions}.
 *
 * @remarks
 * Strict: an unknown key is an error. {@link VotingBuilder} validates with it, so the same messages
 * come from `Patterns.voting(...)`.
 *
 * @example
 * ```ts
 * import { ConfigError, parseConfig } from '@rxagents/core';
 * import { VotingOptionsSchema } from '@rxagents/patterns';
 *
 * try {
 *   parseConfig(VotingOptionsSchema, { agents: [], concurrency: 0 }, 'Voting options');
 * } catch (error) {
 *   if (error instanceof ConfigError) console.log(error.message);
 *   // Voting options: agents must list at least one voter, got []; concurrency must be a positive integer, got 0
 * }
 * ```
 */
export const VotingOptionsSchema = z.strictObject({
  agents: agentList<AgentRef>(1, 'must list at least one voter'),
  aggregation: configRules.function<VotingAggregation>().optional(),
  parseVote: configRules.function<(reply: string) => string>().optional(),
  prompt: configRules.function<(question: string, voterId: string) => string>().optional(),
  concurrency: configRules.positiveInt().optional(),
  agentTimeout: configRules.timeoutMs().optional(),
  timeout: configRules.timeoutMs().optional(),
  scheduler: configRules.scheduler().optional(),
});

/**
 * The state of a vote: the question, the votes so far, and what the aggregation concludes from them.
 *
 * @remarks
 * `decision` is recomputed after every vote, so a `snapshots$()` subscriber sees the standing result as
 * votes arrive.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns, type VotingState } from '@rxagents/patterns';
 *
 * const voters = [defineAgent('a', async () => 'Approve'), defineAgent('b', async () => 'Approve')];
 * const tally = (state: VotingState): string => `${state.votes.length} vote(s): ${state.decision.reason}`;
 * Patterns.voting({ agents: voters }).snapshots$('Release?').subscribe((snapshot) => console.log(snapshot.status, tally(snapshot.state)));
 * // running 1 vote(s): approve won with 1 of 1 votes
 * // running 2 vote(s): approve won with 2 of 2 votes
 * // completed 2 vote(s): approve won with 2 of 2 votes
 * ```
 */
export interface VotingState {
  readonly question: string;
  readonly votes: readonly Vote[];
  readonly decision: VotingDecision;
}

const defaultParseVote = (reply: string): string =>
  (reply.trim().split('\n')[0] ?? '')
    .trim()
    .toLowerCase()
    .replace(/[.!?]+$/, '');

function decide(aggregation: VotingAggregation, votes: readonly Vote[]): VotingDecision {
  const decision: unknown = aggregation(votes);
  // A winner that is neither a string nor undefined (`null` for "no winner") would end the vote `completed` with no output.
  const winner: unknown = typeof decision === 'object' && decision !== null ? (decision as VotingDecision).winner : undefined;
  if (typeof decision !== 'object' || decision === null || typeof (decision as VotingDecision).reason !== 'string' || (winner !== undefined && typeof winner !== 'string')) {
    throw new TypeError(`voting: the aggregation gave ${typeof decision === 'object' && decision !== null ? preview(decision) : String(decision)} for ${votes.length} vote(s); return { winner, reason } (winner a string, or undefined for none)`);
  }
  return decision as VotingDecision;
}

/** The choice in `reply`, or `undefined` (an abstention) when it holds none: an empty choice is no vote for `''`. */
function voteOf(parseVote: (reply: string) => string, reply: string): string | undefined {
  const choice: unknown = parseVote(reply);
  if (typeof choice !== 'string') throw new TypeError(`voting: parseVote gave ${String(choice)} for ${JSON.stringify(reply.slice(0, 80))}; return the choice as a string`);
  return choice === '' ? undefined : choice;
}

/**
 * A vote: every agent answers the same question at once; the aggregation picks the winner.
 *
 * @remarks
 * Directly, the driver calls every voter concurrently in one iteration. `.overChannel()` runs it as a
 * FanIn (free-for-all: everybody answers at once): each vote is posted on the channel and tallied as it
 * arrives; only the votes the run posted count, not a result someone else posts on its channel. A voter that fails or times out, or whose reply holds no choice (`parseVote` gives `''`), abstains
 * (its result is recorded, the vote goes on). A tie
 * (no winner) gives status `deadlocked`; the output is the winner, or `''` when deadlocked.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns } from '@rxagents/patterns';
 *
 * const a = defineAgent('a', async () => 'Approve.');
 * const b = defineAgent('b', async () => 'Reject.');
 * const result = await Patterns.voting({ agents: [a, b] }).overChannel().execute('Merge #42?');
 * console.log(result.status, result.reason); // deadlocked tie between approve, reject (1 vote each)
 * ```
 */
export class VotingBuilder extends PatternBuilder<VotingState> {
  readonly #settings: z.output<typeof VotingOptionsSchema>;
  readonly #channel: ChannelBackendOptions<AgentResult> | undefined;

  /** Validates `options`; prefer {@link Patterns.voting}. @throws `ConfigError`. */
  constructor(options: VotingOptions, channel?: ChannelBackendOptions<AgentResult>) {
    super();
    this.#settings = parseOnce(VotingOptionsSchema, options, 'Voting options', (parsed) => ({ ...parsed, agents: [...options.agents] }));
    this.#channel = channel === undefined ? undefined : channelSettings(channel, '.overChannel() options');
  }

  /** The same vote as a FanIn over a `StreamingChannel`. */
  overChannel(options: ChannelBackendOptions<AgentResult> = {}): VotingBuilder {
    return new VotingBuilder(this.#settings, channelSettings(options, '.overChannel() options'));
  }

  build(): ExecutionModel<VotingState> {
    const { agents, aggregation = VotingAggregations.majority(), parseVote = defaultParseVote, prompt, concurrency, agentTimeout, timeout } = this.#settings;
    const model = assembleModel<VotingState>({
      pattern: 'voting',
      agents,
      initialState: (question) => ({ question, votes: [], decision: decide(aggregation, []) }),
      route: () => agents,
      prompt: (state, voter) => (prompt === undefined ? state.question : prompt(state.question, voter.id)),
      aggregate: (state, result) => {
        const votes = [...state.votes, { agentId: result.agentId, choice: result.success ? voteOf(parseVote, result.output) : undefined }];
        return { ...state, votes, decision: decide(aggregation, votes) };
      },
      termination: Terminations.of('every vote counted', ({ state }) => ({ type: 'complete', reason: state.decision.reason })),
      output: (state) => state.decision.winner ?? '',
      deadlocked: (state) => state.decision.winner === undefined,
      failOnAgentError: false,
      concurrency: concurrency ?? agents.length,
      scheduler: this.#settings.scheduler ?? asyncScheduler,
      ...(agentTimeout === undefined ? {} : { agentTimeout }),
      ...(timeout === undefined ? {} : { timeout }),
    });
    if (this.#channel === undefined) return model;
    const strategy: FanInStrategy = {
      kind: 'fanIn',
      ...(concurrency === undefined ? {} : { concurrency }),
      ...(agentTimeout === undefined ? {} : { agentTimeout }),
      ...(timeout === undefined ? {} : { timeout }),
    };
    return attachBackend(model, channelBackend(strategy, this.#channel));
  }
}
