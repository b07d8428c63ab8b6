import { z } from 'zod';
import { configRules } from '@rxagents/core';
import type { HandoffSource } from '../strategy/HandoffStrategy';

/**
 * Options of a {@link HandoffChain}.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { HandoffChain, type HandoffChainOptions } from '@rxagents/handoff';
 *
 * const options: HandoffChainOptions = { from: { id: 'gateway' } };
 * const chain = new HandoffChain([{ agent: defineAgent('writer', async () => 'letter') }], options);
 * console.log(chain.source?.id); // gateway
 * ```
 */
export interface HandoffChainOptions {
  /** Who hands off to the first step; then every step runs. Without it, the first step is only the source. */
  readonly from?: HandoffSource;
}

/**
 * The zod schema of {@link HandoffChainOptions} (strict).
 *
 * @example
 * ```ts
 * import { HandoffChainOptionsSchema } from '@rxagents/handoff';
 *
 * console.log(HandoffChainOptionsSchema.safeParse({ from: { id: '' } }).success); // false
 * ```
 */
export const HandoffChainOptionsSchema = z.strictObject({
  from: z.looseObject({ id: configRules.id() }, { error: 'must be an object with a non-blank id' }).optional(),
});
