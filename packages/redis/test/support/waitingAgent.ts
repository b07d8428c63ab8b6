import { type Agent, defineAgent } from '@rxagents/core';

/** What {@link waitingAgent} gives a test. */
export interface WaitingAgent {
  readonly agent: Agent;
  /** How many calls started. */
  readonly started: number;
  /** How many calls saw their `AbortSignal` fire. */
  readonly aborted: number;
}

/** An agent whose calls never answer: each waits for its signal to abort and then fails with its reason. */
export function waitingAgent(id: string): WaitingAgent {
  let started = 0;
  let aborted = 0;
  const agent = defineAgent(id, (_input, { signal }) => {
    started++;
    return new Promise<string>((_resolve, reject) =>
      signal.addEventListener('abort', () => {
        aborted++;
        reject(signal.reason);
      }),
    );
  });
  return {
    agent,
    get started() {
      return started;
    },
    get aborted() {
      return aborted;
    },
  };
}
