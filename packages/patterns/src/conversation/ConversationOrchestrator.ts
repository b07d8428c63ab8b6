import { asyncScheduler, type Observable, type SchedulerLike } from 'rxjs';
import { configRules, observeRun, parseConfig, type RunEvent, type RunEventsOptions, type RunOutcome, traceRun } from '@rxagents/core';
import { z } from 'zod';
import type { AgentRef } from '../agents/AgentRef';
import { agentList } from '../agents/agentList';
import type { ConversationState } from './ConversationState';
import * as ConversationStates from './conversationStates';
import { PatternFailedError } from '../errors/PatternFailedError';
import { EventsOptionsSchema, type RunOptions, RunOptionsSchema } from '../execution/RunOptions';
import { type ConversationPrompt, conversationPrompt } from './conversationPrompt';
import { type ConversationChannel, type ConversationEvent, type ConversationSettings, runConversation } from './runConversation';
import type { TerminationCondition } from '../termination/TerminationCondition';
import type { TurnPolicy } from './TurnPolicy';
import * as TurnPolicies from './turnPolicies';

export type { ConversationChannel, ConversationEvent } from './runConversation';

/**
 * Options of {@link ConversationOrchestrator.create}.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { ConversationOrchestrator, TerminationCondition, TurnPolicy, type ConversationOrchestratorOptions } from '@rxagents/patterns';
 *
 * const options: ConversationOrchestratorOptions = {
 *   participants: ['pm', 'dev', 'qa'].map((id) => defineAgent(id, async () => `${id} here. @qa please confirm.`)),
 *   turnPolicy: TurnPolicy.addressed(),
 *   termination: TerminationCondition.or(TerminationCondition.textMention('DONE'), TerminationCondition.maxMessages(10)),
 *   prompt: (state, speaker) => `You are ${speaker}. ${state.messages.length} messages so far on: ${state.topic}`,
 *   agentTimeout: 30_000,
 *   pattern: 'release-chat',
 * };
 * const orchestrator = ConversationOrchestrator.create(options);
 * ```
 */
export interface ConversationOrchestratorOptions {
  /** Who takes part, in order (round robin follows it). At least one. */
  readonly participants: readonly AgentRef[];
  /** Who speaks next. Default: round robin. */
  readonly turnPolicy?: TurnPolicy;
  /** When the conversation ends; evaluated on the projection after every turn. */
  readonly termination: TerminationCondition<ConversationState>;
  /** What a speaker is asked. Default {@link conversationPrompt}. */
  readonly prompt?: ConversationPrompt;
  /** Per-turn limit for each speaker, in ms (core's `AgentTimeoutError`); up to `MAX_DELAY_MS` (about 24.8 days), `Infinity` for none. */
  readonly agentTimeout?: number;
  /** Whole-conversation limit, in ms (`ExecutionTimeoutError`, status failed); up to `MAX_DELAY_MS` (about 24.8 days), `Infinity` for none. */
  readonly timeout?: number;
  /** How many speakers of one turn (a free-for-all) answer at once. Default: all of them. */
  readonly concurrency?: number;
  /** The clock. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** The pattern name used in errors. Default `conversation`. */
  readonly pattern?: string;
}

/**
 * The zod schema of {@link ConversationOrchestratorOptions}.
 *
 * @remarks
 * Strict: an unknown key is an error. {@link ConversationOrchestrator.create} validates with it.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { ConversationOrchestrator, ConversationOrchestratorOptionsSchema, TerminationCondition } from '@rxagents/patterns';
 *
 * // Validate the JSON-friendly part from a settings file, then add the parts only code can give.
 * const limits = ConversationOrchestratorOptionsSchema.pick({ agentTimeout: true, timeout: true, pattern: true }).parse(JSON.parse('{ "timeout": 60000, "pattern": "standup" }'));
 * const orchestrator = ConversationOrchestrator.create({ ...limits, participants: [defineAgent('a', async () => 'ok')], termination: TerminationCondition.maxMessages(4) });
 * ```
 */
export const ConversationOrchestratorOptionsSchema = z.strictObject({
  participants: agentList<AgentRef>(1, 'must list at least one participant'),
  turnPolicy: z.custom<TurnPolicy>((v) => typeof (v as TurnPolicy | undefined)?.next === 'function', { error: 'must be a TurnPolicy' }).optional(),
  termination: z.custom<TerminationCondition<ConversationState>>((v) => typeof (v as TerminationCondition<ConversationState> | undefined)?.evaluate === 'function', {
    error: 'must be a TerminationCondition',
  }),
  prompt: configRules.function<ConversationPrompt>().optional(),
  agentTimeout: configRules.timeoutMs().optional(),
  timeout: configRules.timeoutMs().optional(),
  concurrency: configRules.positiveInt().optional(),
  scheduler: configRules.scheduler().optional(),
  pattern: configRules.id().optional(),
});

/**
 * Runs a conversation whose participants share a channel.
 *
 * @remarks
 * Every reply is posted on the channel; the state is a fold (`scan`) of the channel's messages
 * ({@link ConversationState.fold}), so whatever else watches the channel (a UI, a supervisor) sees
 * exactly what the participants see. Each turn: evaluate termination on the projection, ask the turn
 * policy who speaks, build each speaker's prompt from the projection (it lists the messages before its
 * turn), call the speakers through core's `invoke$`, post each reply, and wait until the projection holds
 * the turn's messages. A speaker that fails or times out ends the conversation as `failed`. Unsubscribing
 * aborts the speaker in flight and clears every timer; the channel is the caller's and stays open.
 * `events$(topic, channel)` is the same conversation as run events (its speakers' calls and tokens,
 * a `message` per folded message, `round-end`, `termination`), and `conversation$(topic, channel, { run })`
 * reports it into a run of yours as a node named after `pattern`.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { StreamingChannel } from '@rxagents/streaming';
 * import { ConversationOrchestrator, TerminationCondition, type PostedMessage } from '@rxagents/patterns';
 *
 * const alice = defineAgent('alice', async () => 'I propose Friday.');
 * const bob = defineAgent('bob', async () => 'Friday works. TERMINATE');
 * const orchestrator = ConversationOrchestrator.create({
 *   participants: [alice, bob],
 *   termination: TerminationCondition.textMention('TERMINATE'),
 * });
 * const channel = StreamingChannel.create<PostedMessage>({ id: 'planning' });
 * orchestrator.conversation$('When do we release?', channel).subscribe((event) => {
 *   if (event.type === 'message') console.log(`${event.message.speaker}: ${event.message.content}`);
 * });
 * ```
 */
export class ConversationOrchestrator {
  private readonly options: ConversationSettings;

  private constructor(options: ConversationSettings) {
    this.options = options;
  }

  /**
   * Validates the options and builds an orchestrator (reusable: each `events$` run is independent).
   *
   * @throws `ConfigError` when an option breaks its rule.
   */
  static create(options: ConversationOrchestratorOptions): ConversationOrchestrator {
    const parsed = parseConfig(ConversationOrchestratorOptionsSchema, options, 'ConversationOrchestrator options');
    return new ConversationOrchestrator({
      ...parsed,
      participants: [...options.participants],
      termination: options.termination,
      turnPolicy: parsed.turnPolicy ?? TurnPolicies.roundRobin(),
      prompt: parsed.prompt ?? conversationPrompt,
      scheduler: parsed.scheduler ?? asyncScheduler,
      pattern: parsed.pattern ?? 'conversation',
    });
  }

  /** The participants' ids, in order. */
  get participantIds(): readonly string[] {
    return this.options.participants.map((p) => p.id);
  }

  /**
   * Runs one conversation on `topic` over `channel`: message events as the projection folds them, then
   * one `finished` event. Cold; unsubscribe to cancel. With `{ run }`, the conversation is reported
   * into it as a node named after the orchestrator's `pattern` (see {@link ConversationOrchestrator.events$}).
   */
  conversation$(topic: string, channel: ConversationChannel, options?: RunOptions): Observable<ConversationEvent> {
    checkArguments(topic, channel);
    if (options === undefined) return runConversation(this.options, topic, channel);
    const { run } = parseConfig(RunOptionsSchema, options, 'run options');
    return traceRun(run, this.options.pattern, topic, (node) => runConversation(this.options, topic, channel, node), (event) =>
      describeConversation(event, this.options.pattern),
    );
  }

  /**
   * The same conversation as {@link ConversationOrchestrator.conversation$}, as its run events: `run-start`
   * (named after `pattern`, default `conversation`), each speaker's call with every token as it comes,
   * a `message` per message the projection folds, `round-end` when every participant has spoken once
   * more, `termination` when it stops (a judge's call included), then `run-end` (a `failed` decision
   * fails; otherwise the output is the transcript). Cold; unsubscribing cancels it.
   *
   * With `store` and `runId` the run is durable: journaled in the store, and resumed from its journal when the store already holds `runId` (finished agent calls are answered from it; see `docs/durable.md`).
   *
   * @example
   * ```ts
   * import { defineAgent } from '@rxagents/core';
   * import { StreamingChannel } from '@rxagents/streaming';
   * import { ConversationOrchestrator, TerminationCondition, type PostedMessage } from '@rxagents/patterns';
   *
   * const bot = defineAgent('bot', async () => 'All done. TERMINATE');
   * const orchestrator = ConversationOrchestrator.create({ participants: [bot], termination: TerminationCondition.textMention('TERMINATE') });
   * orchestrator.events$('Wrap up', StreamingChannel.create<PostedMessage>()).subscribe((event) => {
   *   if (event.type === 'termination') console.log(event.decision, event.reason); // complete bot said "TERMINATE"
   * });
   * ```
   */
  events$(topic: string, channel: ConversationChannel, options: RunEventsOptions = {}): Observable<RunEvent> {
    checkArguments(topic, channel);
    const runOptions = parseConfig(EventsOptionsSchema, options, 'ConversationOrchestrator.events$ options');
    return observeRun(this.options.pattern, topic, (node) => runConversation(this.options, topic, channel, node), {
      ...runOptions,
      scheduler: this.options.scheduler,
      describe: (event) => describeConversation(event, this.options.pattern),
    });
  }
}

/** How a conversation's end reads in its `run-end`: a `failed` decision fails; otherwise the transcript is the output. */
const Topic = z.string({ error: 'must be a string' });
const Channel = z.custom<ConversationChannel>(
  (value) => typeof (value as Partial<ConversationChannel> | null | undefined)?.emit === 'function' && typeof (value as ConversationChannel).asObservable === 'function',
  { error: 'must be a channel (with emit() and asObservable())' },
);

/** What `conversation$` and `events$` are given, checked when they are called. @throws `ConfigError`. */
function checkArguments(topic: string, channel: ConversationChannel): void {
  parseConfig(Topic, topic, 'Conversation topic');
  parseConfig(Channel, channel, 'Conversation channel');
}

function describeConversation(event: ConversationEvent, pattern: string): RunOutcome {
  const output = ConversationStates.transcript(event.state);
  if (event.type !== 'finished' || event.decision.type !== 'failed') return { success: true, output };
  return { success: false, output, error: event.decision.error ?? new PatternFailedError(pattern, event.decision.reason) };
}
