import { z } from 'zod';
import { ConfigError, parseConfig } from '@rxagents/core';

/**
 * Which tools the target keeps during a transfer: `intersect` (only its own tools that the source also
 * has, so a handoff never widens what is allowed) or `passthrough` (all its own tools).
 *
 * @example
 * ```ts
 * import type { HandoffToolPolicyMode } from '@rxagents/handoff';
 *
 * const mode: HandoffToolPolicyMode = 'passthrough';
 * ```
 */
export type HandoffToolPolicyMode = 'intersect' | 'passthrough';

/**
 * The tool boundary of a handoff: a mode and tools that are always removed.
 *
 * @example
 * ```ts
 * import type { HandoffToolPolicy } from '@rxagents/handoff';
 *
 * const noShell: HandoffToolPolicy = { mode: 'intersect', blockedTools: ['shell'] };
 * ```
 */
export interface HandoffToolPolicy {
  /** Defaults to `'intersect'`, so `{ blockedTools: ['shell'] }` alone only blocks. */
  readonly mode?: HandoffToolPolicyMode;
  /** Removed whatever the mode. */
  readonly blockedTools?: readonly string[];
}

/**
 * The zod schema of {@link HandoffToolPolicy}; `mode` defaults to `'intersect'`.
 *
 * @example
 * ```ts
 * import { HandoffToolPolicySchema } from '@rxagents/handoff';
 *
 * console.log(HandoffToolPolicySchema.safeParse({ mode: 'everything' }).success); // false
 * console.log(HandoffToolPolicySchema.parse({ blockedTools: ['shell'] }).mode); // intersect
 * ```
 */
export const HandoffToolPolicySchema = z.strictObject({
  mode: z.enum(['intersect', 'passthrough']).default('intersect'),
  blockedTools: z.array(z.string()).readonly().optional(),
});

/**
 * The tool policy applied when a handoff does not set one: `intersect`, nothing blocked.
 *
 * @example
 * ```ts
 * import { DEFAULT_HANDOFF_TOOL_POLICY } from '@rxagents/handoff';
 *
 * console.log(DEFAULT_HANDOFF_TOOL_POLICY.mode); // intersect
 * ```
 */
export const DEFAULT_HANDOFF_TOOL_POLICY: Required<HandoffToolPolicy> = Object.freeze({ mode: 'intersect', blockedTools: Object.freeze([]) as readonly string[] });

/**
 * Resolves which tool names the target may use during a transfer.
 *
 * @remarks
 * `targetTools` are the target's own tools. Under `intersect` (the mode when `policy` names none), only those the source also has survive;
 * when the source's tools are unknown (`undefined`), the target keeps its own. Under `passthrough` the
 * target keeps its own. `blockedTools` are always removed. The target's order is kept. A handoff passes
 * the result to the target as `ChatOptions.metadata.allowedTools` when either agent declares `tools`.
 *
 * @example
 * ```ts
 * import { resolveHandoffToolPolicy } from '@rxagents/handoff';
 *
 * const allowed = resolveHandoffToolPolicy(['search', 'refund', 'shell'], ['search', 'refund', 'email'], { mode: 'intersect', blockedTools: ['refund'] });
 * console.log(allowed); // [ 'search' ]
 * ```
 */
export function resolveHandoffToolPolicy(
  targetTools: readonly string[],
  sourceTools: readonly string[] | undefined,
  policy: HandoffToolPolicy = DEFAULT_HANDOFF_TOOL_POLICY,
): string[] {
  checkToolNames('targetTools', targetTools, false);
  checkToolNames('sourceTools', sourceTools, true);
  const { mode, blockedTools } = policy === DEFAULT_HANDOFF_TOOL_POLICY ? policy : parseConfig(HandoffToolPolicySchema, policy, 'tool policy');
  const blocked = new Set(blockedTools ?? []);
  const sourceSet = mode === 'intersect' && sourceTools !== undefined ? new Set(sourceTools) : undefined;
  return targetTools.filter((tool) => !blocked.has(tool) && (sourceSet === undefined || sourceSet.has(tool)));
}

/** Refuses a tool list that is not an array of strings (`undefined` allowed where the tools may be unknown). */
function checkToolNames(path: string, names: unknown, optional: boolean): void {
  if (optional && names === undefined) return;
  if (!Array.isArray(names) || names.some((name) => typeof name !== 'string')) {
    throw new ConfigError('resolveHandoffToolPolicy', [{ path, rule: optional ? 'must be an array of tool names or undefined' : 'must be an array of tool names', received: names }]);
  }
}
