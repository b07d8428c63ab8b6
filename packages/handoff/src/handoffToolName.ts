import type { Agent } from '@rxagents/core';

/**
 * The longest tool name providers accept.
 *
 * @example
 * ```ts
 * import { MAX_TOOL_NAME_LENGTH, handoffToolName } from '@rxagents/handoff';
 *
 * console.log(handoffToolName({ id: 'x', name: 'a'.repeat(100) }).length === MAX_TOOL_NAME_LENGTH); // true
 * ```
 */
export const MAX_TOOL_NAME_LENGTH = 64;

/**
 * The tool name a handoff to `agent` is exposed as: `transfer_to_<lowercased_snake_of_agent_name>`.
 *
 * @remarks
 * Uses the agent's `name`, else its `id`. The name is lowercased, every run of characters other than
 * letters, digits, `_` and `-` becomes one `_`, leading and trailing `_` are trimmed, and the whole name is
 * capped at 64 characters, so any name becomes a provider-legal tool name.
 *
 * @example
 * ```ts
 * import { handoffToolName } from '@rxagents/handoff';
 *
 * console.log(handoffToolName({ id: 'b', name: 'Billing' })); // transfer_to_billing
 * console.log(handoffToolName({ id: 's', name: 'Support Bot' })); // transfer_to_support_bot
 * console.log(handoffToolName({ id: 't', name: 'Tier-2 Ops' })); // transfer_to_tier-2_ops
 * ```
 */
export function handoffToolName(agent: Pick<Agent, 'id' | 'name'>): string {
  const snake = (agent.name ?? agent.id)
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return `transfer_to_${snake === '' ? 'agent' : snake}`.slice(0, MAX_TOOL_NAME_LENGTH);
}

/**
 * The tool description generated for a handoff to `agent`, from its name, role and goal.
 *
 * @remarks
 * `Transfer task to <name>`, plus ` (<role>)` when the agent has a role and ` - <goal>` when it has a
 * goal. The model reads it to decide when to hand off, so role and goal route more accurately.
 *
 * @example
 * ```ts
 * import { handoffToolDescription } from '@rxagents/handoff';
 *
 * console.log(handoffToolDescription({ id: 's', name: 'Support Bot' })); // Transfer task to Support Bot
 * console.log(handoffToolDescription({ id: 's', name: 'Support Bot', role: 'Support Specialist', goal: 'Resolve customer tickets' }));
 * // Transfer task to Support Bot (Support Specialist) - Resolve customer tickets
 * ```
 */
export function handoffToolDescription(agent: Pick<Agent, 'id' | 'name' | 'role' | 'goal'>): string {
  const role = agent.role ? ` (${agent.role})` : '';
  const goal = agent.goal ? ` - ${agent.goal}` : '';
  return `Transfer task to ${agent.name ?? agent.id}${role}${goal}`;
}
