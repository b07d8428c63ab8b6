import type { AgentCallResult, Message } from '@rxagents/core';

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
 * The outcome of {@link Handoff.execute}: core's {@link @rxagents/core!AgentCallResult | AgentCallResult}
 * for the target's call, plus who answered, the time in seconds and the threaded context.
 *
 * @remarks
 * A union on `success`: after `if (outcome.success)`, `output` is the target's whole reply (a `string`);
 * a target that fails gives `success: false`, the `Error` instance in `error` and no `output`. The guards
 * (cycle, depth, timeout, validation) reject instead. `agentId` is the target's id (the same as
 * `handedOffTo`) and `input` the prompt it answered (`context.input`). `startedAt` and `durationMs` are
 * read from the handoff's scheduler and include any wait for a permit (`maxConcurrent`);
 * `durationSeconds` is the same time in seconds (`durationMs / 1000`).
 *
 * @example
 * ```ts
 * import type { HandoffOutcome } from '@rxagents/handoff';
 *
 * const report = (outcome: HandoffOutcome) =>
 *   outcome.success
 *     ? `${outcome.handedOffTo} answered "${outcome.output}" in ${outcome.durationMs} ms via ${outcome.context.handoffChain.join(' -> ')}`
 *     : `${outcome.handedOffTo} failed: ${outcome.error.message}`;
 * ```
 */
export type HandoffOutcome = AgentCallResult & {
  /** The target's id (the same as `agentId`). */
  readonly handedOffTo: string;
  /** The same time as `durationMs`, in seconds: `durationMs / 1000`. */
  readonly durationSeconds: number;
  /** What the target was given, with the extended chain. */
  readonly context: HandoffRunContext;
};
