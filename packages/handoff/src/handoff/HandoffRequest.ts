import { z } from 'zod';
import { configRules, type Message } from '@rxagents/core';

/**
 * What {@link Handoff.execute} is asked to hand over.
 *
 * @remarks
 * `chain`, `depth` and `max_depth` are PraisonAI's legacy spellings of `handoffChain`, a declared
 * starting depth, and `maxDepth`, accepted so Python-shaped snippets keep working.
 *
 * @example
 * ```ts
 * import type { HandoffRequest } from '@rxagents/handoff';
 *
 * const request: HandoffRequest = {
 *   input: 'Why was I charged twice?',
 *   messages: [{ role: 'system', content: 'You are a helpful assistant' }],
 * };
 * ```
 */
export interface HandoffRequest {
  /** The prompt the target answers. */
  readonly input: string;
  /** The conversation so far, oldest first; the context policy selects from it. */
  readonly messages?: readonly Message[];
  /** Resume this chain instead of the one in scope. */
  readonly handoffChain?: readonly string[];
  /** The tool call's arguments (an object or its JSON text), checked against `inputSchema`. */
  readonly arguments?: unknown;
  /** Facts passed to the target in `ChatOptions.metadata`. */
  readonly metadata?: Readonly<Record<string, unknown>>;
  /** Overrides the handoff's `maxDepth` for this call. */
  readonly maxDepth?: number;
  /** Legacy alias of `handoffChain`. */
  readonly chain?: readonly string[];
  /** Legacy: how deep the chain already is when its ids are unknown. */
  readonly depth?: number;
  /** Legacy alias of `maxDepth`. */
  readonly max_depth?: number;
}

const MessageSchema = z.looseObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string({ error: 'must be a string' }),
});

const ROLES: ReadonlySet<unknown> = new Set(MessageSchema.shape.role.options);

/** Whether `value` is a message as {@link HandoffRequestSchema} accepts it (a known role, string content), without zod. @internal */
export function isMessage(value: unknown): boolean {
  return typeof value === 'object' && value !== null && ROLES.has((value as { role?: unknown }).role) && typeof (value as { content?: unknown }).content === 'string';
}

/**
 * The zod schema of {@link HandoffRequest}.
 *
 * @example
 * ```ts
 * import { HandoffRequestSchema } from '@rxagents/handoff';
 *
 * console.log(HandoffRequestSchema.safeParse({ input: 'hi', chain: ['a'] }).success); // true
 * ```
 */
export const HandoffRequestSchema = z.strictObject({
  input: z.string({ error: 'must be a string' }),
  messages: z.array(MessageSchema).readonly().optional(),
  handoffChain: z.array(configRules.id()).readonly().optional(),
  arguments: z.unknown().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  maxDepth: configRules.nonNegativeInt().optional(),
  chain: z.array(configRules.id()).readonly().optional(),
  depth: configRules.nonNegativeInt().optional(),
  max_depth: configRules.nonNegativeInt().optional(),
});
