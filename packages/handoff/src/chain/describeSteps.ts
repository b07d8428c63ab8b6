import type { RunOutcome } from '@rxagents/core';
import type { HandoffResult } from '../strategy/HandoffResult';
import { describeCall } from '../internal/describeCall';

/** A chain's outcome: a success when every step succeeded (with the last output), else the first failure. */
export function describeSteps(results: readonly HandoffResult[]): RunOutcome {
  const failed = results.find((result) => !result.success);
  if (failed !== undefined) return describeCall(failed);
  const last = results.at(-1);
  return last === undefined ? { success: true } : describeCall(last);
}
