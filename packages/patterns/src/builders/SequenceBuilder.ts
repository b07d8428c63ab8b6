import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { configRules } from '@rxagents/core';
import { z } from 'zod';
import type { AgentRef } from '../agents/AgentRef';
import { agentList } from '../agents/agentList';
import { AppendLog } from '../conversation/AppendLog';
import { logView, markedLog, markLog } from '../conversation/logView';
import { channelBackend, type ChannelBackendOptions, channelSettings } from '../channel/ChannelBackend';
import { assembleModel, attachBackend } from '../execution/assembleModel';
import type { PostedMessage } from '../conversation/ConversationState';
import { parseOnce } from './validated';
import type { ExecutionModel } from '../execution/ExecutionModel';
import { modelConversation } from './modelConversation';
import { PatternBuilder } from './PatternBuilder';
import * as Terminations from '../termination/terminationConditions';


/** `outputs` of every SequenceState: one getter for all (see logView). */
const OUTPUTS = logView();
/**
 * Options of {@link Patterns.sequence}.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns, type SequenceOptions } from '@rxagents/patterns';
 *
 * const options: SequenceOptions = {
 *   agents: [defineAgent('outline', async (topic) => `1. ${topic}`), defineAgent('write', async (prompt) => prompt.toUpperCase())],
 *   prompt: (previous, agentId, index) => (index === 0 ? previous : `[${agentId}] expand: ${previous}`),
 *   agentTimeout: 30_000,
 * };
 * console.log((await Patterns.sequence(options).execute('otters')).output); // [WRITE] EXPAND: 1. OTTERS
 * ```
 */
export interface SequenceOptions {
  /** The steps, in order. At least one. */
  readonly agents: readonly AgentRef[];
  /** What step `index` is asked, given the previous output (the input for the first). Default: that output. */
  readonly prompt?: (previous: string, agentId: string, index: number) => string;
  /** Per-step limit in ms; up to `MAX_DELAY_MS` (about 24.8 days), `Infinity` for none. */
  readonly agentTimeout?: number;
  /** Whole-pipeline limit in ms; up to `MAX_DELAY_MS` (about 24.8 days), `Infinity` for none. */
  readonly timeout?: number;
  readonly scheduler?: SchedulerLike;
}

/**
 * The zod schema of {@link SequenceOptions}.
 *
 * @remarks
 * Strict: an unknown key is an error. `Patterns.sequence(...)` validates with it.
 *
 * @example
 * ```ts
 * import { parseConfig } from '@rxagents/core';
 * import { SequenceOptionsSchema } from '@rxagents/patterns';
 *
 * try {
 *   parseConfig(SequenceOptionsSchema, { agents: [] }, 'Sequence options');
 * } catch (error) {
 *   console.log((error as Error).message); // Sequence options: agents must list at least one agent, got []
 * }
 * ```
 */
export const SequenceOptionsSchema = z.strictObject({
  agents: agentList<AgentRef>(1, 'must list at least one agent', { repeats: 'same-agent' }),
  prompt: configRules.function<(previous: string, agentId: string, index: number) => string>().optional(),
  agentTimeout: configRules.timeoutMs().optional(),
  timeout: configRules.timeoutMs().optional(),
  scheduler: configRules.scheduler().optional(),
});

/**
 * The state of a sequence: the input and each step's output so far.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns, type SequenceState } from '@rxagents/patterns';
 *
 * const draft = defineAgent('draft', async (topic) => `A draft about ${topic}`);
 * const edit = defineAgent('edit', async (text) => text.toUpperCase());
 * const lastStep = (state: SequenceState): string => state.outputs.map((o) => o.agentId).join(' -> ') || '(none yet)';
 * Patterns.sequence({ agents: [draft, edit] }).snapshots$('otters').subscribe(({ status, state }) => console.log(status, lastStep(state)));
 * // running draft
 * // running draft -> edit
 * // completed draft -> edit
 * ```
 */
export interface SequenceState {
  readonly input: string;
  /** Each step's output so far: a frozen array, built when first read. */
  readonly outputs: readonly { readonly agentId: string; readonly output: string }[];
}

type SequenceOutput = SequenceState['outputs'][number];

/**
 * A pipeline: each agent works on the previous agent's output; the last output is the answer.
 *
 * @remarks
 * Directly, one agent per driver iteration. `.overChannel()` runs it as a Conversation: each step's
 * output is posted on a `StreamingChannel` (a UI or a logger watching it sees the pipeline's progress)
 * and the next step is prompted from the channel's projection; the results are the same either way. A
 * failing step fails the run.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Patterns } from '@rxagents/patterns';
 *
 * const draft = defineAgent('draft', async (topic) => `A draft about ${topic}`);
 * const edit = defineAgent('edit', async (text) => text.toUpperCase());
 * const result = await Patterns.sequence({ agents: [draft, edit] }).execute('otters');
 * console.log(result.output); // A DRAFT ABOUT OTTERS
 * ```
 */
export class SequenceBuilder extends PatternBuilder<SequenceState> {
  readonly #settings: z.output<typeof SequenceOptionsSchema>;
  readonly #channel: ChannelBackendOptions<PostedMessage> | undefined;

  /** Validates `options`; prefer {@link Patterns.sequence}. @throws `ConfigError`. */
  constructor(options: SequenceOptions, channel?: ChannelBackendOptions<PostedMessage>) {
    super();
    this.#settings = parseOnce(SequenceOptionsSchema, options, 'Sequence options', (parsed) => ({ ...parsed, agents: [...options.agents] }));
    this.#channel = channel === undefined ? undefined : channelSettings(channel, '.overChannel() options');
  }

  /** The same pipeline as a Conversation over a `StreamingChannel`: each step's output is a message. */
  overChannel(options: ChannelBackendOptions<PostedMessage> = {}): SequenceBuilder {
    return new SequenceBuilder(this.#settings, channelSettings(options, '.overChannel() options'));
  }

  build(): ExecutionModel<SequenceState> {
    const { agents, prompt, agentTimeout, timeout } = this.#settings;
    // Each state's `outputs` is a view of one shared log (O(1) per step), built into a frozen array when read.
    const stateOf = (input: string, log: AppendLog<SequenceOutput>): SequenceState => {
      const state = { input } as { input: string; outputs: readonly SequenceOutput[] };
      Object.defineProperty(state, 'outputs', OUTPUTS);
      return markLog(state, log);
    };
    const logOf = (state: SequenceState): AppendLog<SequenceOutput> => markedLog<SequenceOutput>(state) ?? AppendLog.of(state.outputs);
    const previous = (state: SequenceState): string => logOf(state).last()?.output ?? state.input;
    const model = assembleModel<SequenceState>({
      pattern: 'sequence',
      agents,
      initialState: (input) => stateOf(input, AppendLog.empty()),
      route: (_state, iteration) => (iteration < agents.length ? [agents[iteration] as AgentRef] : []),
      prompt: (state, agent, iteration) => (prompt === undefined ? previous(state) : prompt(previous(state), agent.id, iteration)),
      aggregate: (state, result) => (result.success ? stateOf(state.input, logOf(state).append({ agentId: result.agentId, output: result.output })) : state),
      termination: Terminations.maxIterations(agents.length),
      output: previous,
      failOnAgentError: true,
      concurrency: 1,
      scheduler: this.#settings.scheduler ?? asyncScheduler,
      ...(agentTimeout === undefined ? {} : { agentTimeout }),
      ...(timeout === undefined ? {} : { timeout }),
    });
    return this.#channel === undefined ? model : attachBackend(model, channelBackend(modelConversation(model), this.#channel));
  }
}
