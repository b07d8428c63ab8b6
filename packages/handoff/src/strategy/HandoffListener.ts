import type { HandoffContext } from '../context/HandoffContext';
import type { HandoffResult } from './HandoffResult';
import type { HandoffSource } from './HandoffStrategy';
import type { Agent } from '@rxagents/core';

/**
 * Observes handoffs made by a {@link DefaultHandoff}: before each, after each success, on each failure.
 *
 * @remarks
 * Every method is optional (a no-op when missing). A listener that throws is ignored: it never breaks
 * a handoff or keeps other listeners from being called. Its error is reported as
 * unhandled (`reportUnhandledError` from `@rxagents/core`: RxJS's `config.onUnhandledError` when set,
 * otherwise rethrown asynchronously), so it is never silently lost.
 *
 * @example
 * ```ts
 * import { DefaultHandoff, type HandoffListener } from '@rxagents/handoff';
 *
 * const timing: HandoffListener = {
 *   onAfter: (result) => console.log(`${result.fromAgentId} -> ${result.toAgentId} in ${result.durationMs}ms`),
 *   onFailed: (result) => console.log(`failed at ${result.toAgentId}`),
 * };
 * const remove = new DefaultHandoff().addListener(timing);
 * remove();
 * ```
 */
export interface HandoffListener {
  /** Called before the receiver is touched. */
  onBefore?(from: HandoffSource, to: Agent, context: HandoffContext): void;
  /** Called with each successful result. */
  onAfter?(result: HandoffResult): void;
  /** Called with each failed result. */
  onFailed?(result: HandoffResult): void;
}
