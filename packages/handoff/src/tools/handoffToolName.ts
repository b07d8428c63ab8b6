import { ConfigError, type Agent } from '@rxagents/core';
import { hasId } from '../internal/rules';

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
 * Uses the agent's `name`, else its `id`. Accents are taken off letters (`Café` gives `cafe`, `Zürich`
 * gives `zurich`) and full-width letters become plain ones, then the name is lowercased, every run of characters other than
 * letters, digits, `_` and `-` becomes one `_`, leading and trailing `_` are trimmed, and the whole name is
 * capped at 64 characters, so any name becomes a provider-legal tool name (`^[a-zA-Z0-9_-]{1,64}$`).
 *
 * A name with no Latin letter or digit (`支払い`, `Оплата`, `🤖`) leaves nothing to keep, so the agent's
 * `id` is used the same way; when the id has none either, the name is `transfer_to_agent_` and seven
 * characters of a hash of the id (FNV-1a over its code points, in base 36). The same agent id always gives
 * the same name, and agents with different ids get different names, so such agents can share a tool list.
 * Two agents can still map to one name (the same `name`, or a long name cut at 64 characters): a list of
 * handoffs refuses that with a `ConfigError` naming both (see {@link normalizeHandoffs}); give one a
 * `name` of its own in `handoff({ agent, name })`.
 *
 * @example
 * ```ts
 * import { handoffToolName } from '@rxagents/handoff';
 *
 * console.log(handoffToolName({ id: 'b', name: 'Billing' })); // transfer_to_billing
 * console.log(handoffToolName({ id: 's', name: 'Support Bot' })); // transfer_to_support_bot
 * console.log(handoffToolName({ id: 't', name: 'Tier-2 Ops' })); // transfer_to_tier-2_ops
 * console.log(handoffToolName({ id: 'c', name: 'Café Desk' })); // transfer_to_cafe_desk
 * console.log(handoffToolName({ id: 'payments-jp', name: '支払い' })); // transfer_to_payments-jp
 * console.log(handoffToolName({ id: '支払い' })); // transfer_to_agent_12hljbj
 * ```
 */
export function handoffToolName(agent: Pick<Agent, 'id' | 'name'>): string {
  checkNamed('handoffToolName', agent);
  const slug = slugOf(agent.name ?? agent.id) ?? slugOf(agent.id) ?? `agent_${idHash(agent.id)}`;
  return `transfer_to_${slug}`.slice(0, MAX_TOOL_NAME_LENGTH);
}

/** `text` as a tool-name slug, or `undefined` when no Latin letter or digit is left to name anything. */
function slugOf(text: string): string | undefined {
  const slug = text
    // Accents come off their letters (`é` is `e` and a combining mark) and compatibility forms become
    // their plain letters (full-width `Ａ`, the ligature `ﬁ`), so `Café` is `cafe`, not `caf`.
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return /[a-z0-9]/.test(slug) ? slug : undefined;
}

/** Seven base-36 characters of the 32-bit FNV-1a hash of `id`'s code points: short, stable across runs and versions. */
function idHash(id: string): string {
  let hash = 0x811c9dc5;
  for (const char of id) hash = Math.imul(hash ^ (char.codePointAt(0) as number), 0x01000193);
  return (hash >>> 0).toString(36).padStart(7, '0');
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
  checkNamed('handoffToolDescription', agent);
  const role = agent.role ? ` (${agent.role})` : '';
  const goal = agent.goal ? ` - ${agent.goal}` : '';
  return `Transfer task to ${agent.name ?? agent.id}${role}${goal}`;
}

/** Refuses what has no non-blank string id: a name built from `undefined` would be a tool nobody can tell apart. */
function checkNamed(subject: string, agent: unknown): void {
  if (!hasId(agent)) throw new ConfigError(subject, [{ path: 'agent', rule: 'must be an object with a non-blank id', received: agent }]);
}
