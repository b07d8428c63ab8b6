import * as z from 'zod';
import * as configRules from '../configRules';

/**
 * The zod schema of `RunLeaseOptions` (`acquireLease`'s options), which every store checks `acquireLease`'s options with.
 *
 * @example
 * ```ts
 * import { RunLeaseOptionsSchema } from '@rxagents/core';
 *
 * console.log(RunLeaseOptionsSchema.safeParse({ owner: 'registry-a' }).success); // true
 * console.log(RunLeaseOptionsSchema.safeParse({ owner: ' ' }).success); // false
 * ```
 */
export const RunLeaseOptionsSchema = z.strictObject({ owner: configRules.leaseOwner().optional() }, { error: 'must be an object' });
