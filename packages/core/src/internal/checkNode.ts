import { isRunContext } from '../configRules';
import { ConfigError } from '../errors/ConfigError';
import type { RunContext } from '../events/RunContext';

/**
 * Refuses a context above a run's root (`callId: null`, one made by hand): an event reported there would
 * name a node that does not exist, and a view would show it as a root that never ends.
 */
export function checkNode(run: RunContext, what: string): asserts run is RunContext & { readonly callId: string } {
  if (!isRunContext(run)) throw new ConfigError(what, [{ path: 'run', rule: 'must be a run context ({ runId, callId, scheduler, emit }) or undefined', received: run }]);
  if (run.callId === null) {
    throw new ConfigError(what, [
      {
        path: 'run.callId',
        rule: 'must name a node of the run: report with the context an agent call gets (ChatOptions.run) or the one observeRun or traceRun gives its body, not one above the root',
        received: null,
      },
    ]);
  }
}
