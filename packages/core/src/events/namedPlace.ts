import { ConfigError } from '../errors/ConfigError';
import type { RunContext } from './RunContext';

/**
 * A context of the same node whose next children (agent calls, nested runs) take their place in a
 * durable run from `name` rather than from their order.
 *
 * @remarks
 * In a run started with a store, every call and nested run is known by its place: by default its ordinal
 * among its node's children in the order they start. A primitive whose children start in an order that
 * depends on which earlier one finished first (a choreography starting each interaction when its trigger
 * arrives) names them instead, so a resumed run finds each child's recorded outcome whatever order the
 * replay reaches them in. The segment is `~` and the name escaped with `encodeURIComponent`; a second
 * child under the same name gets `~name:1`, and so on. Children named do not use up ordinals. Without a
 * durable run (no store) it returns `run` itself and costs nothing; with `undefined` it returns `undefined`.
 *
 * @param run - The node's context.
 * @param name - A name unique among the node's children, the same on every run (an interaction id).
 * @returns The context to pass to the child.
 * @throws `ConfigError` when `name` is not a non-empty string.
 *
 * @example
 * ```ts
 * import { defineAgent, invoke$, namedPlace, observeRun } from '@rxagents/core';
 *
 * const reviewer = defineAgent('reviewer', async (draft) => `Looks good: ${draft}`);
 * observeRun('review', 'draft', (run) => invoke$(reviewer, 'draft', { run: namedPlace(run, 'review') })).subscribe((event) => {
 *   if (event.type === 'call-end') console.log(event.agentId); // reviewer
 * });
 * ```
 */
export function namedPlace<R extends RunContext | undefined>(run: R, name: string): R {
  if (typeof name !== 'string' || name === '') throw new ConfigError('namedPlace', [{ path: 'name', rule: 'must be a non-empty string', received: name }]);
  const journal = run?.journal;
  if (journal === undefined) return run;
  return { ...run, journal: journal.named(`~${encodeURIComponent(name)}`) };
}
