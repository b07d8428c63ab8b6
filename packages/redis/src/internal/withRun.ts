import type { Agent, ChatOptions, RunContext, TraceContext } from '@rxagents/core';

/**
 * The agent a worker runs a call of, through `stream` (which it gives no run and no trace context, so the
 * options the agent gets carry neither): the agent itself when the caller sent neither, else one whose
 * `ChatOptions.run` is the caller's run context and whose `ChatOptions.traceContext` is the caller's trace
 * context. The call itself is not traced here: the caller's run already has its node.
 */
export function withRun(agent: Agent, run: RunContext | undefined, traceContext?: TraceContext): Agent {
  if (run === undefined && traceContext === undefined) return agent;
  return {
    id: agent.id,
    chat: (input, options) => agent.chat(input, withSignalOf(options, run, traceContext)),
  };
}

/**
 * `options` with `run` added, its `signal` read only when the agent reads it: copying the options would
 * read it, which creates the call's AbortController.
 */
function withSignalOf(options: ChatOptions, run: RunContext | undefined, traceContext: TraceContext | undefined): ChatOptions {
  return {
    get signal() {
      return options.signal;
    },
    ...(options.context === undefined ? {} : { context: options.context }),
    ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
    ...(run === undefined ? {} : { run }),
    ...(traceContext === undefined ? {} : { traceContext }),
  };
}
