import { useMemo } from 'react';
import { createRunViewStore, type RunViewStore } from '../createRunViewStore';
import type { RunSource } from '../RunSource';
import type { RunViewOptions } from '../RunViewOptions';

/** Whether `value` is a store already (from `createRunViewStore`), not a source to read. */
export function isRunViewStore(value: unknown): value is RunViewStore {
  const store = value as Partial<RunViewStore> | null;
  return typeof store === 'object' && store !== null && typeof store.subscribe === 'function' && typeof store.getSnapshot === 'function' && typeof store.getServerSnapshot === 'function';
}

/**
 * The store of a hook: the one given, or one made for the source, made again only when the source
 * changes (a URL by its text, anything else by identity). The options are read when it is made.
 */
export function useStore(source: RunSource | RunViewStore, options: RunViewOptions | undefined): RunViewStore {
  const key = typeof source === 'string' ? source : source instanceof URL ? source.href : source;
  // Keyed by the source alone: options written inline are a new object at every render.
  return useMemo(() => (isRunViewStore(source) ? source : createRunViewStore(source, options)), [key]);
}
