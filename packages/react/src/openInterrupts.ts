import type { RunEventOf, RunView } from '@rxagents/core';

/**
 * A run's questions to a person still waiting for an answer, in a view: its interrupt nodes still
 * running, each as its `interrupt` event (`interruptId`, `kind`, `question`, `schema`, `action`, `args`).
 *
 * @remarks
 * One per `interruptId`, in the order they were asked: a question asked again under the same id (a
 * durable run resumed after a restart asks it again) is listed once, as its latest node says it. An
 * interrupt ends when answered, timed out or cancelled; so does every node of a run the page sees end
 * (a stream that ended with the server's error ends the nodes still open). Reading it walks the view's
 * nodes: call it for a view you render (in `useMemo`), not for every event.
 *
 * @param view - A run's view, from `runView`, `reduceRunView` or {@link useRunView}.
 * @returns The open interrupts, oldest first.
 *
 * @example
 * ```ts
 * import { emptyRunView, reduceRunView, type RunEvent } from '@rxagents/core';
 * import { openInterrupts } from '@rxagents/react';
 *
 * const base = { runId: 'r', parentCallId: 'root', at: 0 } as const;
 * const events: RunEvent[] = [
 *   { type: 'run-start', runId: 'r', callId: 'root', parentCallId: null, at: 0, name: 'invoice', input: 'bill ACME' },
 *   { type: 'interrupt', ...base, callId: 'q1', interruptId: 'id-1', kind: 'approval', question: 'Send it?', schema: {}, action: 'send_invoice', args: { to: 'ACME' } },
 * ];
 * const [open] = openInterrupts(events.reduce(reduceRunView, emptyRunView));
 * console.log(open?.interruptId, open?.action, open?.question); // id-1 send_invoice Send it?
 * ```
 */
export function openInterrupts(view: RunView): readonly RunEventOf<'interrupt'>[] {
  const open = new Map<string, RunEventOf<'interrupt'>>();
  for (const node of view.nodes) {
    if (node.kind !== 'interrupt' || node.interrupt === undefined) continue;
    if (node.status === 'running') open.set(node.interrupt.interruptId, node.interrupt);
    else open.delete(node.interrupt.interruptId);
  }
  return [...open.values()];
}
