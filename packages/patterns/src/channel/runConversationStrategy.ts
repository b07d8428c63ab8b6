import { defer, map, type Observable } from 'rxjs';
import type { RunContext } from '@rxagents/core';
import { conversationPrompt } from '../conversation/conversationPrompt';
import { type ConversationChannel, type ConversationSettings, runConversation } from '../conversation/runConversation';
import { resultLogOf } from '../conversation/conversationResults';
import type { ConversationStrategy } from './ChannelExecutionStrategy';
import type { ConversationState } from '../conversation/ConversationState';
import type { ExecutionModel } from '../execution/ExecutionModel';
import type { ExecutionResult } from '../execution/ExecutionResult';
import { resultOf } from '../execution/resultOf';

/**
 * The Conversation strategy's wiring: the model's agents become participants, the strategy supplies turns, termination
 * and projection, the conversation runs over `channel`, and each event becomes an
 * {@link ExecutionResult} of the model's state type.
 */
export function runConversationStrategy<T>(
  strategy: ConversationStrategy<T>,
  model: ExecutionModel<T>,
  input: string,
  channel: ConversationChannel,
  run?: RunContext,
): Observable<ExecutionResult<T>> {
  // Model and strategy were validated when they were made: nothing is parsed again per run. A model
  // whose route may call one agent at several steps (a sequence) lists it once as a participant.
  const iterationsOf = strategy.iterations ?? ((state: ConversationState) => state.round);
  const settings: ConversationSettings = {
    participants: [...new Map(model.agents.map((agent) => [agent.id, agent] as const)).values()],
    turnPolicy: strategy.turnPolicy,
    termination: strategy.termination,
    prompt: strategy.prompt ?? conversationPrompt,
    scheduler: model.scheduler,
    pattern: model.pattern,
    agentTimeout: model.agentTimeout,
    timeout: model.timeout,
    iterations: iterationsOf,
    ownReplies: strategy.ownReplies,
  };
  return defer(() => {
    const startedAt = model.scheduler.now();
    return runConversation(settings, input, channel, run).pipe(
      map((event) => {
        const facts = { model, mode: 'channel' as const, state: strategy.project(event.state), iterations: iterationsOf(event.state), results: resultLogOf(event), startedAt };
        return event.type === 'message' ? resultOf(facts) : resultOf(facts, event.decision);
      }),
    );
  });
}
