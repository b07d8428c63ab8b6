import { ConfigError } from '@rxagents/core';
import type { HandoffContext } from '../context/HandoffContext';

/**
 * The prompt a {@link DefaultHandoff} gives the receiver unless its `prompt` option says otherwise:
 * `Process handoff task: <taskId> | payload: <payload as JSON>`.
 *
 * @remarks
 * Built from the context alone. In a {@link HandoffChain} each step's context carries only
 * `{ previousOutput }`, so a step's prompt holds the previous reply, never the previous prompt (unless
 * that agent echoed it). A payload that cannot be serialized (a cycle, a BigInt) is written with `String`.
 * Anything but a context is a `ConfigError` naming `context`.
 *
 * @example
 * ```ts
 * import { defaultHandoffPrompt, HandoffContext } from '@rxagents/handoff';
 *
 * console.log(defaultHandoffPrompt(HandoffContext.of('ticket-7', { invoiceId: '42' }))); // Process handoff task: ticket-7 | payload: {"invoiceId":"42"}
 * ```
 */
export function defaultHandoffPrompt(context: HandoffContext): string {
  if (typeof context !== 'object' || context === null || typeof context.taskId !== 'string') {
    throw new ConfigError('defaultHandoffPrompt', [{ path: 'context', rule: 'must be a HandoffContext (build one with new HandoffContext or HandoffContext.of)', received: context }]);
  }
  return `Process handoff task: ${context.taskId} | payload: ${stringify(context.payload)}`;
}

function stringify(payload: Readonly<Record<string, unknown>>): string {
  try {
    return JSON.stringify(payload) ?? '{}';
  } catch {
    return String(payload);
  }
}
