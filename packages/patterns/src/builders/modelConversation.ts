import type { AgentRef } from '../agents/AgentRef';
import type { AgentResult } from '../execution/AgentResult';
import type { ConversationStrategy } from '../channel/ChannelExecutionStrategy';
import { type ConversationMessage, type ConversationState, messageAt, messageCount } from '../conversation/ConversationState';
import type { ExecutionModel } from '../execution/ExecutionModel';
import { evaluateTermination } from '../termination/evaluateTermination';
import * as Terminations from '../termination/terminationConditions';
import { CONTINUE } from '../termination/TerminationDecision';

/**
 * A model whose iterations each call one agent (a sequence, a supervisor), as a Conversation over a
 * channel that gives the same results as the orchestrated driver.
 *
 * @remarks
 * Each reply is a message on the channel; one reply is one iteration. Only the run's own replies count:
 * a message is a step when it answers the call the run made for that step (its `replyTo`, see the
 * strategy's `ownReplies`), whatever its speaker, so a message from anyone else on the channel (a person,
 * another run relaying its replies, a post under the name of one of the agents) is folded into the
 * transcript, not into the model's state, and is no iteration. The model's state is its own
 * `aggregate` folded over the messages (a message read as a successful result of its speaker, at the
 * time it was posted, with `input: ''`: a message does not carry its prompt), one message at a time and remembered per message, so a turn costs O(1). The
 * turn policy asks the model's `route` (with the number of replies as the iteration), a speaker's
 * prompt is the model's `prompt` on that state, and the model's termination decides after every
 * message (not before the first, as the driver). A failed call is not a message: it ends the run as
 * `failed` with the iterations completed before it, as directly.
 */
export function modelConversation<T>(model: ExecutionModel<T>): ConversationStrategy<T> {
  const byId = new Map(model.agents.map((agent) => [agent.id, agent] as const));
  // Filled by each run with the messages that answer its own calls (see runConversation).
  const ownReplies = new WeakSet<ConversationMessage>();
  // The state after each message and how many of the messages so far were the agents' replies (steps).
  const stateAfter = new WeakMap<ConversationMessage, { readonly state: T; readonly steps: number }>();
  // A message carries no prompt and only the time it was posted: `input` is '' and the call takes no time.
  const resultOf = (message: ConversationMessage): AgentResult => ({ success: true, agentId: message.speaker, input: '', output: message.content, startedAt: message.at, durationMs: 0 });

  /** The model's state and steps after the conversation's last message, folding only what was not folded yet. */
  const folded = (conversation: ConversationState): { readonly state: T; readonly steps: number } => {
    const count = messageCount(conversation);
    let known = count - 1;
    while (known >= 0 && !stateAfter.has(messageAt(conversation, known) as ConversationMessage)) known -= 1;
    let after = known < 0 ? { state: model.initialState(conversation.topic), steps: 0 } : (stateAfter.get(messageAt(conversation, known) as ConversationMessage) as { state: T; steps: number });
    for (let index = known + 1; index < count; index += 1) {
      const message = messageAt(conversation, index) as ConversationMessage;
      // A message that answers none of the run's calls is no step of the model, whoever it names as its
      // speaker: otherwise a sequence would skip a step and run on it, and a supervisor would take a
      // worker's real reply, coming after it, for its own decision.
      if (ownReplies.has(message)) after = { state: model.aggregate(after.state, resultOf(message)), steps: after.steps + 1 };
      stateAfter.set(message, after);
    }
    return after;
  };
  const project = (conversation: ConversationState): T => folded(conversation).state;
  const stepsOf = (conversation: ConversationState): number => folded(conversation).steps;

  return {
    kind: 'conversation',
    turnPolicy: {
      name: `${model.pattern} routing`,
      next: (conversation) => {
        const { state, steps } = folded(conversation);
        return model.route(state, steps).map((agent) => agent.id);
      },
    },
    termination: Terminations.of<ConversationState>(model.termination.description, (snapshot) => {
      const { state, steps } = folded(snapshot.state);
      return steps === 0 ? CONTINUE : evaluateTermination(model.termination, { state, iteration: steps, elapsedMs: snapshot.elapsedMs, run: snapshot.run });
    }),
    project,
    prompt: (conversation, speaker) => {
      const { state, steps } = folded(conversation);
      return model.prompt(state, byId.get(speaker) as AgentRef, steps);
    },
    iterations: stepsOf,
    ownReplies,
  };
}
