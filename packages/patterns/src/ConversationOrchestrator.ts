import { asyncScheduler, BehaviorSubject, concat, concatMap, defer, EMPTY, first, ignoreElements, map, merge, type Observable, of, scan, type SchedulerLike, takeWhile, tap } from 'rxjs';
import { configRules, parseConfig } from '@rxagents/core';
import { z } from 'zod';
import type { AgentRef } from './AgentRef';
import { agentList } from './agentList';
import type { AgentFailure, AgentResult } from './AgentResult';
import { AppendLog } from './AppendLog';
import { withLog } from './conversationResults';
import { type ConversationMessage, type ConversationState, lastMessage, messageCount, type PostedMessage } from './ConversationState';
import * as ConversationStates from './conversationStates';
import { type ConversationPrompt, conversationPrompt } from './conversationPrompt';
import { dispatchAgents } from './dispatchAgents';
import { MessageDroppedError } from './errors/MessageDroppedError';
import { UnknownParticipantError } from './errors/UnknownParticipantError';
import { evaluateTermination } from './evaluateTermination';
import { decideBeforeDeadline, overallDeadline, passedDeadline } from './RunDeadline';
import type { TerminationCondition } from './TerminationCondition';
import type { TerminationDecision } from './TerminationDecision';
import type { TurnPolicy } from './TurnPolicy';
import * as TurnPolicies from './turnPolicies';
import { unfoldSteps, type Unfolded } from './unfoldSteps';

/**
 * The part of a `StreamingChannel` a conversation needs: post a message, watch every message.
 *
 * @remarks
 * A `StreamingChannel<PostedMessage>` is one; `emit` returns whether the message was accepted. When the
 * channel has `offer$` (a `StreamingChannel` has), replies are posted with it, so under `BLOCK` a post
 * waits for room instead of parking. A reply the channel drops ends the conversation as `failed` with
 * {@link MessageDroppedError}: it would never reach the projection.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Subject } from 'rxjs';
 * import { ConversationOrchestrator, TerminationCondition, type ConversationChannel, type PostedMessage } from '@rxagents/patterns';
 *
 * // A bare in-memory channel (no buffer, no backpressure), for a test say.
 * const posted = new Subject<PostedMessage>();
 * const channel: ConversationChannel = { emit: (message) => (posted.next(message), true), asObservable: () => posted.asObservable() };
 * const echo = defineAgent('echo', async () => 'hi');
 * const orchestrator = ConversationOrchestrator.create({ participants: [echo], termination: TerminationCondition.maxMessages(2) });
 * orchestrator.run('Say hi', channel).subscribe((event) => console.log(event.type)); // message, message, finished
 * ```
 */
export interface ConversationChannel {
  emit(message: PostedMessage): boolean;
  /** Posts and emits once whether the message entered the channel (`false`: it was dropped). */
  offer$?(message: PostedMessage): Observable<boolean>;
  asObservable(): Observable<PostedMessage>;
}

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
 * A conversation's progress: a message folded into the projection, or the end.
 *
 * @remarks
 * One `message` event per message the channel delivers, then one `finished` event with the decision.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { StreamingChannel } from '@rxagents/streaming';
 * import { ConversationOrchestrator, TerminationCondition, type ConversationEvent, type PostedMessage } from '@rxagents/patterns';
 *
 * const show = (event: ConversationEvent): string =>
 *   event.type === 'message' ? `${event.message.speaker}: ${event.message.content}` : `${event.decision.type} (${event.decision.reason})`;
 * const bot = defineAgent('bot', async () => 'All done. TERMINATE');
 * const orchestrator = ConversationOrchestrator.create({ participants: [bot], termination: TerminationCondition.textMention('TERMINATE') });
 * orchestrator.run('Wrap up', StreamingChannel.create<PostedMessage>()).subscribe((event) => console.log(show(event)));
 * // bot: All done. TERMINATE
 * // complete (bot said "TERMINATE")
 * ```
 */
export type ConversationEvent =
  | {
      readonly type: 'message';
      readonly message: ConversationMessage;
      readonly state: ConversationState;
      /** Every speaker's result so far, in completion order: a frozen array, built when first read (events share one log). */
      readonly results: readonly AgentResult[];
    }
  | {
      readonly type: 'finished';
      readonly state: ConversationState;
      readonly decision: Exclude<TerminationDecision, { type: 'continue' }>;
      /** Every speaker's result, in completion order: a frozen array, built when first read. */
      readonly results: readonly AgentResult[];
    };

/**
 * Runs a conversation whose participants share a channel, like the ConversationOrchestrator of the
 * Java coordination library these APIs follow.
 *
 * @remarks
 * Every reply is posted on the channel; the state is a fold (`scan`) of the channel's messages
 * ({@link ConversationState.fold}), so whatever else watches the channel (a UI, a supervisor) sees
 * exactly what the participants see. Each turn: evaluate termination on the projection, ask the turn
 * policy who speaks, build each speaker's prompt from the projection (it lists the messages before its
 * turn), call the speakers through core's `reply`, post each reply, and wait until the projection holds
 * the turn's messages. A speaker that fails or times out ends the conversation as `failed`. Unsubscribing
 * aborts the speaker in flight and clears every timer; the channel is the caller's and stays open.
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
 * orchestrator.run('When do we release?', channel).subscribe((event) => {
 *   if (event.type === 'message') console.log(`${event.message.speaker}: ${event.message.content}`);
 * });
 * ```
 */
export class ConversationOrchestrator {
  private readonly options: Required<Omit<ConversationOrchestratorOptions, 'agentTimeout' | 'timeout' | 'concurrency'>> &
    Pick<ConversationOrchestratorOptions, 'agentTimeout' | 'timeout' | 'concurrency'>;

  private constructor(options: ConversationOrchestrator['options']) {
    this.options = options;
  }

  /**
   * Validates the options and builds an orchestrator (reusable: each `run` is independent).
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
   * one `finished` event. Cold; unsubscribe to cancel.
   */
  run(topic: string, channel: ConversationChannel): Observable<ConversationEvent> {
    const { participants, turnPolicy, termination, prompt, agentTimeout, timeout, scheduler, pattern } = this.options;
    const byId = new Map(participants.map((p) => [p.id, p] as const));
    const ids = participants.map((p) => p.id);
    return defer(() => {
      const startedAt = scheduler.now();
      const overall = overallDeadline(timeout, startedAt);
      const projection = new BehaviorSubject(ConversationStates.initial(topic, ids));
      let results = AppendLog.empty<AgentResult>();
      let posted = 0;
      const finished = (decision: Exclude<TerminationDecision, { type: 'continue' }>): ConversationEvent => {
        const log = results;
        return withLog(
          {
            type: 'finished',
            state: projection.value,
            decision,
            get results() {
              return log.toArray();
            },
          },
          log,
        );
      };

      const messages$ = channel.asObservable().pipe(
        scan(ConversationStates.fold, projection.value),
        tap((state) => projection.next(state)),
        map((state): ConversationEvent => {
          const log = results;
          return withLog(
            {
              type: 'message',
              message: lastMessage(state) as ConversationMessage,
              state,
              get results() {
                return log.toArray();
              },
            },
            log,
          );
        }),
      );

      const check = (): Observable<Unfolded<TurnStep, ConversationEvent>> =>
        defer(() => {
          const state = projection.value;
          const decision$ = evaluateTermination(termination, { state, iteration: state.round, elapsedMs: scheduler.now() - startedAt });
          return decideBeforeDeadline(decision$, overall, scheduler, pattern).pipe(
            map((decision): Unfolded<TurnStep, ConversationEvent> => (decision.type === 'continue' ? { next: { speak: state } } : { emit: finished(decision) })),
          );
        });

      const speak = (state: ConversationState): Observable<Unfolded<TurnStep, ConversationEvent>> => {
        const end = (decision: Exclude<TerminationDecision, { type: 'continue' }>) => of({ emit: finished(decision) });
        const late = passedDeadline(overall, scheduler, pattern);
        if (late !== undefined) return end(late);
        const next = turnPolicy.next(state);
        if (!Array.isArray(next)) throw new TypeError(`turn policy "${turnPolicy.name}" gave ${String(next)}; return the ids of the next speakers ([] to end the conversation)`);
        if (next.length === 0) return end({ type: 'complete', reason: `${turnPolicy.name} named no speaker` });
        const unknown = next.find((id) => !byId.has(id));
        if (unknown !== undefined) {
          const error = new UnknownParticipantError(unknown, ids);
          return end({ type: 'failed', reason: error.message, error });
        }
        const speakers = next.map((id) => byId.get(id) as AgentRef);
        let failure: AgentFailure | undefined;
        let lost: MessageDroppedError | undefined;
        const post$ = (message: PostedMessage): Observable<boolean> => (channel.offer$ === undefined ? of(channel.emit(message)) : channel.offer$(message));
        const replies$ = dispatchAgents(speakers, (speaker) => prompt(projection.value, speaker.id), {
          pattern,
          concurrency: this.options.concurrency ?? speakers.length,
          agentTimeout,
          overall,
          failFast: true,
          scheduler,
        }).pipe(
          // Posted one after another, in completion order; a post may wait for room (BLOCK).
          concatMap((result) => {
            results = results.append(result);
            if (!result.ok) {
              failure = result;
              return EMPTY;
            }
            posted += 1;
            return post$({ speaker: result.agentId, content: result.output, at: result.finishedAt }).pipe(
              tap((accepted) => {
                if (!accepted) lost ??= new MessageDroppedError(pattern, result.agentId);
              }),
            );
          }),
          takeWhile(() => lost === undefined),
          ignoreElements(),
        );
        return concat(
          replies$,
          defer(() =>
            lost !== undefined
              ? end({ type: 'failed', reason: lost.message, error: lost })
              : failure !== undefined
              ? end({ type: 'failed', reason: `agent ${failure.agentId} failed`, error: failure.error })
              : projection.pipe(
                  first((s) => messageCount(s) >= posted),
                  map((): Unfolded<TurnStep, ConversationEvent> => ({ next: { check: true } })),
                ),
          ),
        );
      };

      // Turns run from a flat loop (see unfoldSteps), so agents that answer synchronously run in constant stack.
      const turns$ = unfoldSteps<TurnStep, ConversationEvent>({ check: true }, (step) => ('speak' in step ? speak(step.speak) : check()));
      return merge(messages$, turns$).pipe(takeWhile((event) => event.type !== 'finished', true));
    });
  }
}

/** One step of the turn loop: check termination, or let the next speakers speak. */
type TurnStep = { readonly check: true } | { readonly speak: ConversationState };
