import { ConfigError } from '../../errors/ConfigError';
import type { RunContext } from '../../events/RunContext';
import { checkNode } from '../checkNode';

/** Refuses a missing run context (nobody would see the question) and one above the root. */
export function checkAsker(run: RunContext | undefined, what: string): asserts run is RunContext & { readonly callId: string } {
  if (run === undefined) {
    throw new ConfigError(what, [
      {
        path: 'run',
        rule: 'must be the run context to ask in (an agent call gets it as ChatOptions.run, a run body as its argument): outside a run nobody sees the question',
        received: undefined,
      },
    ]);
  }
  checkNode(run, what);
}
