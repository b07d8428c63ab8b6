import type { RunEvent, RunEventOf } from '../../events/RunEvent';
import { preview } from '../../preview';
import type { InterruptRequest } from '../interrupts/InterruptRequest';

// How a divergence names what the journal holds at a place and what the code did there: short previews
// (each already quoted by `preview`), read in `RunDivergenceError`'s message.

export function describeCall(agentId: string, input: string, inputOmitted: boolean): string {
  return `agent "${agentId}", input ${inputOmitted ? '(omitted: too long to record)' : preview(input)}`;
}

export function describeNode(name: string): string {
  return `a nested run ${preview(name)}`;
}

export function describeInterrupt(event: RunEventOf<'interrupt'>): string {
  return describeRequest(event);
}

export function describeRequest(request: InterruptRequest): string {
  const what = request.kind === 'approval' ? `an approval of ${preview(request.action ?? '')} with ${preview(request.args ?? null)}` : 'an input';
  return `${what}, asking ${preview(request.question)}`;
}

export function describeEvent(event: RunEvent): string {
  if (event.type === 'run-start') return `a "run-start" of ${preview(event.name)}`;
  return `a "${event.type}" event`;
}
