/**
 * The Redis keys of remote agents. An agent's call and dead-letter streams share the hash tag `{agentId}`;
 * every key of one call (reply stream, caller lease, attempt counter, answers) shares `{callId}`, so each group
 * lives in one Redis Cluster slot and a pipeline over it never crosses slots.
 */
export interface AgentKeys {
  readonly calls: string;
  readonly deadLetter: string;
}

export interface CallKeys {
  readonly reply: string;
  readonly lease: string;
  readonly attempts: string;
  /** The id of the call entry that took the call: another entry of the same call (a resent XADD) is not run. */
  readonly entry: string;
  /** The answers a caller relays to the worker for the interrupts the call asked (field `answer`, JSON; see `AnswerEntrySchema`). */
  readonly answers: string;
}

export function agentKeys(prefix: string, agentId: string): AgentKeys {
  return { calls: `${prefix}:agent:{${agentId}}:calls`, deadLetter: `${prefix}:agent:{${agentId}}:dead` };
}

export function callKeys(prefix: string, callId: string): CallKeys {
  return { reply: `${prefix}:call:{${callId}}:reply`, lease: `${prefix}:call:{${callId}}:lease`, attempts: `${prefix}:call:{${callId}}:attempts`, entry: `${prefix}:call:{${callId}}:entry`, answers: `${prefix}:call:{${callId}}:answers` };
}

/** The consumer group every worker of an agent id joins. */
export const WORKER_GROUP = 'workers';
