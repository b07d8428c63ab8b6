import type { AgentCallResult, RunOutcome } from '@rxagents/core';

/** A call's result as a run node's outcome: its success, and its output or error. */
export function describeCall(result: AgentCallResult): RunOutcome {
  return result.success ? { success: true, output: result.output } : { success: false, error: result.error };
}
