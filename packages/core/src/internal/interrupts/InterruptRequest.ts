import type { RunEventOf } from '../../events/RunEvent';

/** What an interrupt asks: the fields of its `interrupt` event that the asker chose. */
export interface InterruptRequest {
  readonly kind: 'input' | 'approval';
  readonly question: string;
  /** The answer's JSON Schema. */
  readonly schema: RunEventOf<'interrupt'>['schema'];
  readonly action?: string;
  readonly args?: RunEventOf<'interrupt'>['args'];
}

/** Whether a recorded `interrupt` event asked exactly `request`. */
export function asksTheSame(recorded: RunEventOf<'interrupt'>, request: InterruptRequest): boolean {
  return (
    recorded.kind === request.kind &&
    recorded.question === request.question &&
    recorded.action === request.action &&
    JSON.stringify(recorded.args) === JSON.stringify(request.args) &&
    JSON.stringify(recorded.schema) === JSON.stringify(request.schema)
  );
}
