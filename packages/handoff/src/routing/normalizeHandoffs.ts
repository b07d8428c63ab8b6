import { ConfigError, type Agent } from '@rxagents/core';
import { Handoff } from '../handoff/Handoff';
import { DistinctAgentIds } from '../internal/rules';
import type { HandoffConfig } from '../handoff/HandoffConfig';

/**
 * One entry of an agent's `handoffs` list, at any of PraisonAI's three configuration levels: an agent
 * (level 1), `{ agent, description }` or any other {@link HandoffConfig} (level 2), or a {@link Handoff}
 * instance (level 3).
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { handoff, type HandoffSpec } from '@rxagents/handoff';
 *
 * const billing = defineAgent('billing', async () => 'paid');
 * const specs: HandoffSpec[] = [billing, { agent: billing, description: 'For billing' }, handoff({ agent: billing })];
 * ```
 */
export type HandoffSpec = Agent | HandoffConfig | Handoff;

/**
 * Normalises a `handoffs` list to {@link Handoff} instances, one form whatever the level used.
 *
 * @remarks
 * An agent becomes `handoff({ agent })`, a config object `handoff(config)`, and a `Handoff` stays as it
 * is (keeping its semaphore). Two entries with the same tool name are refused, since a model could not
 * tell them apart: the error names both agents (give one a `name` of its own, see {@link handoffToolName}
 * for how names are generated). So are two different agents with the same id (results and chains name
 * agents by id).
 *
 * @throws {@link @rxagents/core!ConfigError | ConfigError} when an entry is none of the three forms, a config is invalid, two entries have one tool name (naming both agents), or two different agents share an id.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { handoff, normalizeHandoffs } from '@rxagents/handoff';
 *
 * const billing = defineAgent({ id: 'billing', name: 'Billing', chat: async () => 'paid' });
 * const support = defineAgent({ id: 'support', name: 'Support', chat: async () => 'fixed' });
 * const sales = defineAgent({ id: 'sales', name: 'Sales', chat: async () => 'sold' });
 * const handoffs = normalizeHandoffs([billing, { agent: support, description: 'For technical issues' }, handoff({ agent: sales })]);
 * console.log(handoffs.map((h) => h.toolName)); // [ 'transfer_to_billing', 'transfer_to_support', 'transfer_to_sales' ]
 * ```
 */
export function normalizeHandoffs(specs: readonly HandoffSpec[]): Handoff[] {
  if (!Array.isArray(specs)) throw new ConfigError('handoffs', [{ path: '', rule: 'must be an array', received: specs }]);
  const handoffs = specs.map((spec, index) => toHandoff(spec, index));
  const seen = new Map<string, number>();
  const ids = new DistinctAgentIds('handoffs');
  handoffs.forEach((handoff, index) => {
    ids.add(handoff.agent, String(index));
    const earlier = seen.get(handoff.toolName);
    if (earlier !== undefined) {
      const other = JSON.stringify((handoffs[earlier] as Handoff).agent.id);
      throw new ConfigError('handoffs', [
        { path: String(index), rule: `must not repeat the tool name ${handoff.toolName} of agent ${other} (${earlier}; set name on one of them)`, received: handoff.agent.id },
      ]);
    }
    seen.set(handoff.toolName, index);
  });
  return handoffs;
}

function toHandoff(spec: HandoffSpec, index: number): Handoff {
  if (spec instanceof Handoff) return spec;
  if (typeof spec === 'object' && spec !== null) {
    if (typeof (spec as Agent).chat === 'function') return new Handoff({ agent: spec as Agent });
    if ('agent' in spec) return new Handoff(spec);
  }
  throw new ConfigError('handoffs', [{ path: String(index), rule: 'must be an agent, a { agent, ... } config or a Handoff', received: spec }]);
}
