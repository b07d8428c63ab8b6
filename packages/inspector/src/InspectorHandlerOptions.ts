import * as z from 'zod';
import { configRules, type RunStore } from '@rxagents/core';
import type { DurableRunRegistry, ExposeError, RunRegistry } from '@rxagents/web';

/**
 * What {@link inspectorHandler} shows: the runs of a run store, their events served by a run registry
 * where one runs them in this process, else read from the store's journals.
 *
 * @example
 * ```ts
 * import { MemoryRunStore } from '@rxagents/core';
 * import type { InspectorHandlerOptions } from '@rxagents/inspector';
 *
 * const options: InspectorHandlerOptions = { store: new MemoryRunStore(), pollMs: 250 };
 * console.log(options.pollMs); // 250
 * ```
 */
export interface InspectorHandlerOptions {
  /** The runs to list (running and finished, `RunStore.list`), and the journals their events are read from. */
  readonly store: RunStore;
  /**
   * A registry that runs some of the store's runs in this process (a durable registry over the same
   * store): their events are served from its memory, as they happen. A run it does not know is read
   * from the store.
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
    store: configRules.runStore(),
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
);
