import type { Message } from '@rxagents/core';

/**
 * What a {@link Handoff} hands over, and what the outcome reports back as `context`.
 *
 * @remarks
 * On an outcome, `messages` are the ones the context policy selected and `handoffChain` is the
 * extended chain: pass `outcome.context` onward to thread the chain by hand.
 *
 * @example
 * ```ts
 * import type { HandoffRunContext } from '@rxagents/handoff';
 *
 * const resumed: HandoffRunContext = { input: 'Refund order #42', messages: [], handoffChain: ['gateway', 'triage'] };
 * ```
 */
export interface HandoffRunContext {
  /** The prompt the target answers. */
  readonly input: string;
  /** The history the target sees (selected by the context policy). */
  readonly messages: readonly Message[];
  /** The agents traversed to reach the target, oldest first (the source last). */
  readonly handoffChain: readonly string[];
  /** The validated tool arguments, when the handoff has an `inputSchema`. */
  readonly arguments?: unknown;
}

/**
 * The outcome of {@link Handoff.execute}: who answered, what, how long it took, and the threaded context.
 *
 * @remarks
 * A target that fails gives `success: false`, `output: null` and `error`; the guards (cycle, depth,
 * timeout, validation) reject instead. `durationMs` is measured on the handoff's scheduler;
 * `durationSeconds` is the same time in seconds (`durationMs / 1000`).
 *
 * @example
 * ```ts
 * import type { HandoffOutcome } from '@rxagents/handoff';
 *
 * const report = (outcome: HandoffOutcome) =>
 *   `${outcome.handedOffTo} ${outcome.success ? 'answered' : 'failed'} in ${outcome.durationMs} ms via ${outcome.context.handoffChain.join(' -> ')}`;
 * ```
 */
export interface HandoffOutcome {
  readonly success: boolean;
  /** The target's id. */
  readonly handedOffTo: string;
  /** The target's whole reply; `null` on failure. */
  readonly output: string | null;
  /** Time from the start of the handoff to its outcome, in ms on the scheduler's clock. */
  readonly durationMs: number;
  /** The same time in seconds: `durationMs / 1000`. */
  readonly durationSeconds: number;
  /** What the target was given, with the extended chain. */
  readonly context: HandoffRunContext;
  /** Why it failed; `undefined` on success. */
  readonly error?: unknown;
}
