import { type RunContext, type RunEventOf, type RunOutcome, serializeError } from '@rxagents/core';
import type { ChoreographyEvent } from '../ChoreographyEvent';
import type { ChoreographyResult, StepResult } from '../ChoreographyResult';
import type { ChoreographySpec } from '../ChoreographySpec';
import { triggersOf } from '../Interaction';

/** How a choreography run ended, as its `termination` event says. */
export type ChoreographyDecision = 'completed' | 'timed-out' | 'deadlocked';

/**
 * The outcome of a run for its `run-end` event: the result's `success`; on success the output of the
 * step that finished last; on a failure the first failed step's error.
 *
 * @internal
 */
export function describeChoreography(result: ChoreographyResult): RunOutcome {
  const { success, stepResults } = result;
  if (!success) return { success, error: stepResults.find((step) => !step.success)?.error };
  const last = stepResults.at(-1);
  return last?.success === true ? { success, output: last.output } : { success };
}

/**
 * Reports the run of a choreography into its node: published events, steps and the termination.
 * Built only when the run has a context, so a run nobody watches pays nothing for it.
 *
 * @internal
 */
export class ChoreographyRunEvents {
  readonly #node: RunContext;
  readonly #callId: string;
  /** Names of the events published so far, to say which ones a waiting interaction missed. */
  readonly #published = new Set<string>();

  constructor(node: RunContext) {
    this.#node = node;
    this.#callId = node.callId ?? node.runId;
  }

  published(event: ChoreographyEvent): void {
    const { runId, parentCallId, scheduler } = this.#node;
    this.#published.add(event.name);
    this.#node.emit({ type: 'choreography-event', runId, callId: this.#callId, parentCallId, at: scheduler.now(), name: event.name, source: event.agentId ?? null });
  }

  step(step: StepResult): void {
    const { runId, parentCallId, scheduler } = this.#node;
    const at = scheduler.now();
    const event: RunEventOf<'step'> = step.success
      ? { type: 'step', runId, callId: this.#callId, parentCallId, at, interactionId: step.interactionId, agentId: step.agentId, success: true, durationMs: step.durationMs }
      : { type: 'step', runId, callId: this.#callId, parentCallId, at, interactionId: step.interactionId, agentId: step.agentId, success: false, error: serializeError(step.error), durationMs: step.durationMs };
    this.#node.emit(event);
  }

  /**
   * Says how the run ended: `completed` when every interaction of the engine ran, `timed-out` when the
   * timeout aborted running agents, `deadlocked` when interactions were left waiting with no agent
   * running (at the timeout, or because the bus ended): they waited for events nobody published.
   */
  terminated(spec: ChoreographySpec, result: ChoreographyResult, context: TerminationContext): void {
    const { runId, parentCallId, scheduler } = this.#node;
    const { decision, reason } = terminationOf(spec, result, context, this.#published);
    this.#node.emit({ type: 'termination', runId, callId: this.#callId, parentCallId, at: scheduler.now(), decision, reason });
  }
}

/**
 * What the run knows of its end besides its result.
 *
 * @internal
 */
export interface TerminationContext {
  readonly timeout: number;
  readonly hostedCount: number;
  readonly aborted: readonly string[];
  readonly cycles: string;
  /** The run was shared by engines in several processes (a bus with a coordinator). */
  readonly shared?: boolean;
}

function terminationOf(
  spec: ChoreographySpec,
  result: ChoreographyResult,
  { timeout, hostedCount, aborted, cycles, shared = false }: TerminationContext,
  published: ReadonlySet<string>,
): { decision: ChoreographyDecision; reason: string } {
  if (hostedCount === 0) return { decision: 'completed', reason: 'this engine runs none of the interactions; it published the initial events' };
  const waiting = result.pending.map((id) => {
    const interaction = spec.interaction(id);
    const missing = interaction === undefined ? [] : triggersOf(interaction).filter((name) => !published.has(name));
    return missing.length === 0 ? id : `${id} (waits for ${missing.join(', ')})`;
  });
  const pending = waiting.length === 0 ? '' : `; never started: ${waiting.join('; ')}`;
  const cycle = cycles === '' ? '' : `; the spec has a cycle: ${cycles}`;
  if (!result.timedOut) {
    if (waiting.length > 0) {
      const why = shared ? 'no interaction was running or claimable in any process and no event was left' : 'the event bus ended before every interaction ran';
      return { decision: 'deadlocked', reason: `${why}${pending}${cycle}` };
    }
    const failed = result.stepResults.filter((step) => !step.success).map((step) => step.interactionId);
    return { decision: 'completed', reason: `all ${hostedCount} interactions ran${failed.length === 0 ? '' : `; failed: ${failed.join(', ')}`}` };
  }
  if (aborted.length > 0) {
    return { decision: 'timed-out', reason: `the timeout of ${timeout} ms passed while ${aborted.join(', ')} ran; aborted${pending}` };
  }
  return { decision: 'deadlocked', reason: `the timeout of ${timeout} ms passed with no agent running${pending}${cycle}` };
}
