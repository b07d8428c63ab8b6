import type { HandoffRequest } from './HandoffRequest';

/** What a request asks, as a run node's input (`''` when it is malformed: the run then fails with the error). */
export function handoffInputOf(request: HandoffRequest): string {
  const input: unknown = (request as { readonly input?: unknown } | undefined)?.input;
  return typeof input === 'string' ? input : '';
}
