import { defer, map, type Observable } from 'rxjs';
import { ConversationOrchestrator, type ConversationChannel } from './ConversationOrchestrator';
import { resultLogOf } from './conversationResults';
import type { ConversationStrategy } from './ChannelExecutionStrategy';
import type { ConversationState } from './ConversationState';
import type { ExecutionModel } from './ExecutionModel';
import type { ExecutionResult } from './ExecutionResult';
import { resultOf } from './resultOf';

/**
 * The Conversation strategy's wiring (a ConversationChannelAdapter in the Java coordination library
 * these APIs follow): the model's agents become participants, the strategy supplies turns, termination
 * and projection, the orchestrator runs over `channel`, and each event becomes an
 * {@link ExecutionResult} of the model's state type.
 */
export function runConversationStrategy<T>(
  strategy: ConversationStrategy<T>,
  model: ExecutionModel<T>,
  input: string,
  channel: ConversationChannel,
): Observable<ExecutionResult<T>> {
  const orchestrator = ConversationOrchestrator.create({
    participants: model.agents,
    turnPolicy: strategy.turnPolicy,
    termination: strategy.termination,
    scheduler: model.scheduler,
    pattern: model.pattern,
    ...(strategy.prompt === undefined ? {} : { prompt: strategy.prompt }),
    ...(model.agentTimeout === undefined ? {} : { agentTimeout: model.agentTimeout }),
    ...(model.timeout === undefined ? {} : { timeout: model.timeout }),
  });
  const iterationsOf = strategy.iterations ?? ((state: ConversationState) => state.round);
  return defer(() => {
    const startedAt = model.scheduler.now();
    return orchestrator.run(input, channel).pipe(
      map((event) => {
        const facts = { model, mode: 'channel' as const, state: strategy.project(event.state), iterations: iterationsOf(event.state), results: resultLogOf(event), startedAt };
        return event.type === 'message' ? resultOf(facts) : resultOf(facts, event.decision);
      }),
    );
  });
}
