import type { Agent } from '@rxagents/core';
import { z } from 'zod';

const isAgent = (value: unknown): value is Agent =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Agent).id === 'string' &&
  (value as Agent).id.trim().length > 0 &&
  typeof (value as Agent).chat === 'function';

/** One agent option: an object with a non-blank `id` and `chat()`. */
export const agentRule = <A extends Agent = Agent>() => z.custom<A>(isAgent, { error: 'must be an agent (with a non-blank id and chat())' });

/**
 * A list of agents whose ids are unique, because results, turns and channel messages are keyed by id.
 *
 * @remarks
 * `repeats: 'same-agent'` lets the same agent object appear more than once (a pipeline may run one
 * agent at several steps); two different agents sharing an id are refused either way.
 */
export function agentList<A extends Agent = Agent>(min: number, minMessage: string, options: { readonly repeats?: 'refuse' | 'same-agent' } = {}) {
  return z
    .array(agentRule<A>())
    .min(min, minMessage)
    .superRefine((agents, ctx) => {
      const seen = new Map<string, A>();
      agents.forEach((agent, index) => {
        const first = seen.get(agent.id);
        if (first === undefined) {
          seen.set(agent.id, agent);
          return;
        }
        if (first === agent && options.repeats === 'same-agent') return;
        ctx.addIssue({
          code: 'custom',
          path: [index, 'id'],
          input: agent.id,
          message:
            first === agent
              ? `must not list agent ${JSON.stringify(agent.id)} twice (each id speaks once and keys its results)`
              : `must be unique: ${JSON.stringify(agent.id)} names two different agents`,
        });
      });
    });
}

/** The first id in `ids` that also names one of `others`, if any. */
export function sharedId(ids: readonly string[], others: readonly string[]): string | undefined {
  const set = new Set(others);
  return ids.find((id) => set.has(id));
}
