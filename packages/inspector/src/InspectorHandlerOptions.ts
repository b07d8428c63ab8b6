import * as z from 'zod';
import { configRules, type RunStore } from '@rxagents/core';
import type { DurableRunRegistry, ExposeError, RunRegistry } from '@rxagents/web';

/**
 * What {@link inspectorHandler} shows: the runs of a run store and of a run registry (one of them at
 * least), their events served by the registry where it holds them, else read from the store's journals.
 *
 * @example
 * ```ts
 * import { MemoryRunStore } from '@rxagents/core';
 * import type { InspectorHandlerOptions } from '@rxagents/inspector';
 *
 * const options: InspectorHandlerOptions = { store: new MemoryRunStore(), pollMs: 250 };
 * // or { registry }: a run registry's runs (createRunRegistry), or both
 * console.log(options.pollMs); // 250
 * ```
 */
export interface InspectorHandlerOptions {
  /** Runs to list (running and finished, `RunStore.list`), and the journals their events are read from. */
  readonly store?: RunStore;
  /**
   * A registry whose runs are listed too (`RunRegistry.list`: the runs it holds, a durable one's store
   * included) and served from its memory as they happen. A run it does not hold is read from `store`.
   */
  readonly registry?: RunRegistry | DurableRunRegistry;
  /** Milliseconds between reads of the journal of a run still running that no registry here runs. Default 500. */
  readonly pollMs?: number;
  /** What the page shows of an error read from a journal. Default `redactError` (its name and code, a generic message). */
  readonly exposeError?: ExposeError;
  /** The path the inspector is mounted at, starting and ending with `/`. Default `/`. */
  readonly basePath?: string;
  /** How many runs the list shows at most, newest first. Default 500. */
  readonly maxListed?: number;
}

const isRegistry = (value: unknown): value is RunRegistry | DurableRunRegistry =>
  typeof value === 'object' && value !== null && typeof (value as { response?: unknown }).response === 'function';

/**
 * The rules of {@link InspectorHandlerOptions}.
 *
 * @example
 * ```ts
 * import { InspectorHandlerOptionsSchema } from '@rxagents/inspector';
 *
 * console.log(InspectorHandlerOptionsSchema.safeParse({ store: {} }).success); // false
 * ```
 */
export const InspectorHandlerOptionsSchema = z.strictObject(
  {
    store: configRules.runStore().optional(),
    registry: z.custom<RunRegistry | DurableRunRegistry>(isRegistry, { error: 'must be a run registry (createRunRegistry)' }).optional(),
    pollMs: configRules.timeoutMs().default(500),
    exposeError: z.custom<ExposeError>((value) => typeof value === 'function', { error: 'must be a function' }).optional(),
    basePath: z
      .string({ error: 'must be a path starting and ending with /' })
      .regex(/^\/([\w.~-]+\/)*$/, 'must be a path starting and ending with /')
      .default('/'),
    maxListed: configRules.positiveInt(10_000).default(500),
  },
  { error: 'must be an object' },
).refine((options) => options.store !== undefined || options.registry !== undefined, { error: 'must name a store or a registry (or both)', path: ['store'] });
