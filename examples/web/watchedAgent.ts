import { defer, finalize, from } from 'rxjs';
import type { Agent } from '@rxagents/core';

/** What the server saw of one agent call: still running, ended by itself, or aborted (its signal fired). */
export interface AgentCallRecord {
  readonly agentId: string;
  /** What the agent was asked. */
  readonly input: string;
  readonly state: 'running' | 'ended' | 'aborted';
}

/** The agent calls of one run, as the server sees them. */
export class AgentCalls {
  readonly #calls: Array<{ agentId: string; input: string; state: AgentCallRecord['state'] }> = [];

  /** Every call so far, in start order. */
  list(): readonly AgentCallRecord[] {
    return this.#calls.map((call) => ({ ...call }));
  }

  /** `agent`, with each of its calls recorded here: when it starts, ends, and whether its signal aborted it. */
  watch<A extends Agent>(agent: A): Agent {
    return {
      id: agent.id,
      ...(agent.name === undefined ? {} : { name: agent.name }),
      ...(agent.role === undefined ? {} : { role: agent.role }),
      ...(agent.goal === undefined ? {} : { goal: agent.goal }),
      chat: (input, options) => {
        const call: { agentId: string; input: string; state: AgentCallRecord['state'] } = { agentId: agent.id, input, state: 'running' };
        this.#calls.push(call);
        const aborted = (): void => {
          if (call.state === 'running') call.state = 'aborted';
        };
        options.signal.addEventListener('abort', aborted, { once: true });
        return defer(() => from(agent.chat(input, options))).pipe(
          finalize(() => {
            options.signal.removeEventListener('abort', aborted);
            if (call.state === 'running') call.state = options.signal.aborted ? 'aborted' : 'ended';
          }),
        );
      },
    };
  }
}
