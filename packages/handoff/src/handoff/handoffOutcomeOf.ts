import type { AgentCallResult } from '@rxagents/core';
import type { HandoffOutcome, HandoffRunContext } from './HandoffOutcome';
import type { HandoffSpec } from './handoffEngine';

/** An outcome: the target's call, with its duration in seconds too and the threaded context. */
export function handoffOutcomeOf(call: AgentCallResult, spec: HandoffSpec<HandoffRunContext, HandoffOutcome>): HandoffOutcome {
  return { ...call, handedOffTo: spec.to.id, durationSeconds: call.durationMs / 1000, context: spec.context };
}
