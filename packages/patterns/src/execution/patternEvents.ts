import { MAX_TEXT_FIELD_LENGTH, type RunContext, type RunEventOf, type RunOutcome } from '@rxagents/core';
import { PatternFailedError } from '../errors/PatternFailedError';
import type { ExecutionResult } from './ExecutionResult';
import type { TerminationDecision } from '../termination/TerminationDecision';

// The events a pattern run says about itself, under its node. Called only when a run context is
// present, so a run nobody watches builds no event object. Fields in the fixed order of every event.

/**
 * A message was posted: a speaker's reply joined the run (directly or on its channel). A content longer
 * than `MAX_TEXT_FIELD_LENGTH` as JSON is not repeated (`contentOmitted: true`): it is the speaker's
 * reply, whose text is in its call's deltas.
 */
export function emitMessage(run: RunContext, speaker: string, content: string): void {
  const base = { type: 'message', runId: run.runId, callId: nodeOf(run), parentCallId: run.parentCallId, at: run.scheduler.now(), speaker } as const;
  if (fitsAsJson(content)) run.emit({ ...base, content });
  else run.emit({ ...base, content: '', contentOmitted: true });
}

/** Whether `text` as a JSON string holds at most `MAX_TEXT_FIELD_LENGTH` characters (a character takes at most 6). */
function fitsAsJson(text: string): boolean {
  if (text.length > MAX_TEXT_FIELD_LENGTH) return false;
  return text.length * 6 <= MAX_TEXT_FIELD_LENGTH || JSON.stringify(text).length - 2 <= MAX_TEXT_FIELD_LENGTH;
}

/** A round (a driver iteration, a conversation round) ended; `round` counts the completed ones. */
export function emitRoundEnd(run: RunContext, round: number): void {
  run.emit({ type: 'round-end', runId: run.runId, callId: nodeOf(run), parentCallId: run.parentCallId, at: run.scheduler.now(), round });
}

/** The run decided to stop. */
export function emitTermination(run: RunContext, decision: Exclude<TerminationDecision, { type: 'continue' }>): void {
  run.emit({ type: 'termination', runId: run.runId, callId: nodeOf(run), parentCallId: run.parentCallId, at: run.scheduler.now(), decision: decision.type, reason: decision.reason });
}

/** A sample of a channel's metrics, as JSON data. */
export function emitMetrics(run: RunContext, source: string, metrics: RunEventOf<'metrics'>['metrics']): void {
  run.emit({ type: 'metrics', runId: run.runId, callId: nodeOf(run), parentCallId: run.parentCallId, at: run.scheduler.now(), source, metrics });
}

/**
 * How a pattern's final result reads in its `run-end`: a `failed` run failed (with its error, or a
 * {@link PatternFailedError} naming the reason); any other end succeeded with the output, as a
 * `ComposedAgent` replies with it.
 */
export function describeResult<T>(result: ExecutionResult<T>): RunOutcome {
  if (result.status !== 'failed') return { success: true, output: result.output };
  return { success: false, output: result.output, error: result.error ?? new PatternFailedError(result.pattern, result.reason ?? 'unknown reason') };
}

function nodeOf(run: RunContext): string {
  return run.callId ?? run.runId;
}
