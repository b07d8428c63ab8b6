import type { Agent, ChatOptions, RunContext } from '@rxagents/core';

/**
 * The agent a worker runs a call of, through `stream` (which it gives no run, so the options the agent
 * gets carry none): the agent itself when the caller had no run, else one whose `ChatOptions.run` is the
 * caller's run context. The call itself is not traced here: the caller's run already has its node.
 */
export function withRun(agent: Agent, run: RunContext | undefined): Agent {
  if (run === undefined) return agent;
  return {
    id: agent.id,
    chat: (input, options) => agent.chat(input, withSignalOf(options, run)),
  };
}

/**
 * `options` with `run` added, its `signal` read only when the agent reads it: copying the options would
 * read it, which creates the call's AbortController.
 */
function withSignalOf(options: ChatOptions, run: RunContext): ChatOptions {
  return {
    get signal() {
      return options.signal;
    },
    ...(options.context === undefined ? {} : { context: options.context }),
    ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
    run,
  };
}
