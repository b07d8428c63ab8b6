import type { StepResult } from '@rxagents/choreography';

/** A successful step: the target's id, the prompt it got, its reply, and its start and duration on the scheduler. */
export const step = (interactionId: string, agentId: string, input: string, output: string, startedAt: number, durationMs: number): StepResult => ({
  interactionId,
  agentId,
  input,
  output,
  success: true,
  startedAt,
  durationMs,
});
