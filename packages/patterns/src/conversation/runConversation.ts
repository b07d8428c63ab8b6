import { BehaviorSubject, concat, concatMap, defer, EMPTY, first, ignoreElements, map, merge, type Observable, of, scan, type SchedulerLike, takeWhile, tap } from 'rxjs';
import type { AgentRef } from '../agents/AgentRef';
import type { AgentFailure, AgentResult } from '../execution/AgentResult';
import { AppendLog } from './AppendLog';
import { withLog } from './conversationResults';
import { type ConversationMessage, type ConversationState, lastMessage, type PostedMessage } from './ConversationState';
import * as ConversationStates from './conversationStates';
import type { ConversationPrompt } from './conversationPrompt';
import { dispatchAgents } from '../execution/dispatchAgents';
import { MessageDroppedError } from '../errors/MessageDroppedError';
import { UnknownParticipantError } from '../errors/UnknownParticipantError';
import { evaluateTermination } from '../termination/evaluateTermination';
import { decideBeforeDeadline, overallDeadline, passedDeadline } from '../execution/RunDeadline';
import type { TerminationCondition } from '../termination/TerminationCondition';
import type { TerminationDecision } from '../termination/TerminationDecision';
import type { TurnPolicy } from './TurnPolicy';
import { newRunId, preview, type RunContext, unfoldSteps, type Unfolded } from '@rxagents/core';
import { emitMessage, emitRoundEnd, emitTermination } from '../execution/patternEvents';
import { UnreadReplies } from './UnreadReplies';
import type { PostedReply } from './PostedMessageSchema';

/**
 * The part of a `StreamingChannel` a conversation needs: post a message, watch every message.
 *
 * @remarks
 * A `StreamingChannel<PostedMessage>` is one; `emit` returns whether the message was accepted. When the
 * channel has `offer$` (a `StreamingChannel` has), replies are posted with it, so under `BLOCK` a post
 * waits for room instead of parking. A reply the channel drops ends the conversation as `failed` with
 * {@link MessageDroppedError}: it would never reach the projection. Others may post on the channel too
 * (a person joining in, another conversation): their messages are folded into the transcript, and a turn
 * still waits until the projection holds its own replies. A reply is recognised by the `replyTo` it is
 * posted with (see {@link PostedReply}), never by its speaker, so a channel must deliver the messages with
 * that field.
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
 * orchestrator.conversation$('Say hi', channel).subscribe((event) => console.log(event.type)); // message, message, finished
 * ```
 */
export interface ConversationChannel {
  emit(message: PostedMessage): boolean;
  /** Posts and emits once whether the message entered the channel (`false`: it was dropped). */
  offer$?(message: PostedMessage): Observable<boolean>;
  asObservable(): Observable<PostedMessage>;
}

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
 * orchestrator.conversation$('Wrap up', StreamingChannel.create<PostedMessage>()).subscribe((event) => console.log(show(event)));
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
 * A conversation's settings once validated and defaulted: what {@link runConversation} runs with.
 * {@link ConversationOrchestrator.create} makes them from user options; a pattern's Conversation
 * strategy makes them from its already validated model, without parsing anything again.
 */
export interface ConversationSettings {
  readonly participants: readonly AgentRef[];
  readonly turnPolicy: TurnPolicy;
  readonly termination: TerminationCondition<ConversationState>;
  readonly prompt: ConversationPrompt;
  readonly agentTimeout?: number | undefined;
  readonly timeout?: number | undefined;
  readonly concurrency?: number | undefined;
  readonly scheduler: SchedulerLike;
  readonly pattern: string;
  /** Completed rounds of a state, for `round-end` events. Default: `state.round`. */
  readonly iterations?: ((state: ConversationState) => number) | undefined;
  /** Where each folded message that is one of the conversation's own replies is added, before anything reads its state. */
  readonly ownReplies?: WeakSet<ConversationMessage> | undefined;
}

/**
 * Runs one conversation on `topic` over `channel` (see {@link ConversationOrchestrator}): message events
 * as the projection folds them, then one `finished` event. Cold; unsubscribe to cancel. With `run`, every
 * call reports into it, and each folded message, each completed round and the end are said there too.
 */
export function runConversation(settings: ConversationSettings, topic: string, channel: ConversationChannel, run?: RunContext): Observable<ConversationEvent> {
  const { participants, turnPolicy, termination, prompt, agentTimeout, timeout, scheduler, pattern } = settings;
  const iterationsOf = settings.iterations ?? roundOf;
  const byId = new Map(participants.map((p) => [p.id, p] as const));
  const ids = participants.map((p) => p.id);
  return defer(() => {
    const startedAt = scheduler.now();
    const overall = overallDeadline(timeout, startedAt);
    const projection = new BehaviorSubject(ConversationStates.initial(topic, ids));
    let results = AppendLog.empty<AgentResult>();
    // Replies posted but not folded yet, by the call id each carries as `replyTo`: a turn ends when the
    // projection holds its own replies, whatever else somebody posted on the channel meanwhile, under
    // any name (with delivery off the caller's stack, or another run relaying its replies onto the
    // channel, a message from outside could otherwise stand in for a reply still on its way).
    const unfolded = new UnreadReplies<string>();
    const { ownReplies } = settings;
    let rounds = 0;
    const finished = (decision: Exclude<TerminationDecision, { type: 'continue' }>): ConversationEvent => {
      if (run !== undefined) emitTermination(run, decision);
      return withLog<Extract<ConversationEvent, { type: 'finished' }>>({ type: 'finished', state: projection.value, decision }, results);
    };

    const messages$ = channel.asObservable().pipe(
      scan((state: ConversationState, message: PostedMessage) => {
        const replyTo = message.replyTo;
        const own = typeof replyTo === 'string' && unfolded.read(replyTo);
        const next = ConversationStates.fold(state, message);
        if (own) ownReplies?.add(lastMessage(next) as ConversationMessage);
        return next;
      }, projection.value),
      // Completed when the channel ends (closed, say, by a watcher), so a turn waiting for its replies ends too.
      tap({ next: (state) => projection.next(state), complete: () => projection.complete() }),
      map((state): ConversationEvent => {
        const message = lastMessage(state) as ConversationMessage;
        if (run !== undefined) {
          emitMessage(run, message.speaker, message.content);
          const completed = iterationsOf(state);
          if (completed > rounds) emitRoundEnd(run, (rounds = completed));
        }
        return withLog<Extract<ConversationEvent, { type: 'message' }>>({ type: 'message', message, state }, results);
      }),
    );

    const check = (): Observable<Unfolded<TurnStep, ConversationEvent>> =>
      defer(() => {
        const state = projection.value;
        const elapsedMs = scheduler.now() - startedAt;
        const decision$ = evaluateTermination(termination, run === undefined ? { state, iteration: state.round, elapsedMs } : { state, iteration: state.round, elapsedMs, run });
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
      checkSpeakers(turnPolicy.name, next);
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
        concurrency: settings.concurrency ?? speakers.length,
        agentTimeout,
        overall,
        failFast: true,
        scheduler,
        run,
      }).pipe(
        // Posted one after another, in completion order; a post may wait for room (BLOCK).
        concatMap((result) => {
          results = results.append(result);
          if (!result.success) {
            failure = result;
            return EMPTY;
          }
          // Counted before posting: a channel may deliver (and the projection fold) the reply during the post.
          const replyTo = newRunId();
          unfolded.posted(replyTo, result.agentId);
          const reply: PostedReply = { speaker: result.agentId, content: result.output, at: result.startedAt + result.durationMs, replyTo };
          return post$(reply).pipe(
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
                // The projection completes with the channel: a reply still unread then never will be.
                first(() => unfolded.count === 0, undefined),
                concatMap((): Observable<Unfolded<TurnStep, ConversationEvent>> => {
                  if (unfolded.count === 0) return of({ next: { check: true } });
                  const dropped = new MessageDroppedError(pattern, unfolded.oneOf() as string);
                  return end({ type: 'failed', reason: dropped.message, error: dropped });
                }),
              ),
        ),
      );
    };

    // Turns run from a flat loop (see unfoldSteps), so agents that answer synchronously run in constant stack.
    const turns$ = unfoldSteps<TurnStep, ConversationEvent>({ check: true }, (step) => ('speak' in step ? speak(step.speak) : check()));
    return merge(messages$, turns$).pipe(takeWhile((event) => event.type !== 'finished', true));
  });
}

const roundOf = (state: ConversationState): number => state.round;

/** A turn policy's answer is ids, each once: an agent in place of its id, or an id twice, is a bug in the policy. */
function checkSpeakers(policy: string, ids: readonly unknown[]): void {
  const seen = new Set<unknown>();
  for (const id of ids) {
    if (typeof id !== 'string') throw new TypeError(`turn policy "${policy}" gave ${preview(id)}; return the ids of the next speakers, not the agents`);
    if (seen.has(id)) throw new TypeError(`turn policy "${policy}" gave ${JSON.stringify(id)} twice in one turn; name each speaker once`);
    seen.add(id);
  }
}

/** One step of the turn loop: check termination, or let the next speakers speak. */
type TurnStep = { readonly check: true } | { readonly speak: ConversationState };
