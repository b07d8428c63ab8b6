import { AgentError, type AgentCallResult } from '@rxagents/core';
import type { HandoffContext } from '../context/HandoffContext';
import type { HandoffResult } from '../strategy/HandoffResult';

/** `error` as an `Error`: itself, or an `AgentError` of `agentId` whose `cause` it is (an abort reason may be any value). */
export function asError(agentId: string, error: unknown): Error {
  return error instanceof Error ? error : new AgentError(agentId, error);
}

/**
 * A failure made before the receiver was called, as a result (the prompt it got is `input`, `''` for none).
 */
export function failedCall(agentId: string, error: unknown, startedAt: number, durationMs: number, input = ''): AgentCallResult {
  return { success: false, agentId, input, error: asError(agentId, error), startedAt, durationMs };
}

/** A strategy's failure made before (or instead of) its receiver's call: routing, a predicate, an abort, a broken strategy. */
export function failedHandoff(fromAgentId: string, toAgentId: string, context: HandoffContext, error: unknown, startedAt: number, durationMs = 0): HandoffResult {
  return { ...failedCall(toAgentId, error, startedAt, durationMs), fromAgentId, toAgentId, taskId: context.taskId, context };
}
