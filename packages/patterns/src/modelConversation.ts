import type { AgentRef } from './AgentRef';
import type { AgentResult } from './AgentResult';
import type { ConversationStrategy } from './ChannelExecutionStrategy';
import { type ConversationMessage, type ConversationState, messageAt, messageCount } from './ConversationState';
import type { ExecutionModel } from './ExecutionModel';
import { evaluateTermination } from './evaluateTermination';
import * as Terminations from './terminationConditions';
import { CONTINUE } from './TerminationDecision';

/**
 * A model whose iterations each call one agent (a sequence, a supervisor), as a Conversation over a
 * channel that gives the same results as the orchestrated driver.
 *
 * @remarks
 * Each reply is a message on the channel; one message is one iteration. The model's state is its own
 * `aggregate` folded over the messages (a message read as a successful result of its speaker, at the
 * time it was posted, with `input: ''`: a message does not carry its prompt), one message at a time and remembered per message, so a turn costs O(1). The
 * turn policy asks the model's `route` (with the number of messages as the iteration), a speaker's
 * prompt is the model's `prompt` on that state, and the model's termination decides after every
 * message (not before the first, as the driver). A failed call is not a message: it ends the run as
 * `failed` with the iterations completed before it, as directly.
 */
export function modelConversation<T>(model: ExecutionModel<T>): ConversationStrategy<T> {
  const byId = new Map(model.agents.map((agent) => [agent.id, agent] as const));
  const stateAfter = new WeakMap<ConversationMessage, { readonly state: T }>();
  // A message carries no prompt and only the time it was posted: `input` is '' and the call takes no time.
  const resultOf = (message: ConversationMessage): AgentResult => ({ success: true, agentId: message.speaker, input: '', output: message.content, startedAt: message.at, durationMs: 0 });

  const project = (conversation: ConversationState): T => {
    const count = messageCount(conversation);
    let known = count - 1;
    while (known >= 0 && !stateAfter.has(messageAt(conversation, known) as ConversationMessage)) known -= 1;
    let state = known < 0 ? model.initialState(conversation.topic) : (stateAfter.get(messageAt(conversation, known) as ConversationMessage) as { state: T }).state;
    for (let index = known + 1; index < count; index += 1) {
      const message = messageAt(conversation, index) as ConversationMessage;
      state = model.aggregate(state, resultOf(message));
      stateAfter.set(message, { state });
    }
    return state;
  };

  return {
    kind: 'conversation',
    turnPolicy: { name: `${model.pattern} routing`, next: (conversation) => model.route(project(conversation), messageCount(conversation)).map((agent) => agent.id) },
    termination: Terminations.of<ConversationState>(model.termination.description, (snapshot) =>
      messageCount(snapshot.state) === 0
        ? CONTINUE
        : evaluateTermination(model.termination, { state: project(snapshot.state), iteration: messageCount(snapshot.state), elapsedMs: snapshot.elapsedMs, run: snapshot.run }),
    ),
    project,
    prompt: (conversation, speaker) => model.prompt(project(conversation), byId.get(speaker) as AgentRef, messageCount(conversation)),
    iterations: messageCount,
  };
}
