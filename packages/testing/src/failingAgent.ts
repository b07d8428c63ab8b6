import { asyncScheduler, mergeMap, type ObservableInput, type SchedulerLike, throwError, timer } from 'rxjs';
import type { Agent } from '@rxagents/core';

/** How a {@link failingAgent} fails: a synchronous throw, a rejected Promise, or an erroring Observable. */
export type FailureMode = 'throw' | 'reject' | 'error';

/** Options of {@link failingAgent}. */
export interface FailingAgentOptions {
  /** How to fail. Defaults to `'error'`. */
  readonly mode?: FailureMode;
  /** For `'error'`: fail after this many ms on `scheduler`. Defaults to 0. */
  readonly delay?: number;
  readonly scheduler?: SchedulerLike;
  readonly name?: string;
}

/**
 * An agent that always fails, in the way you choose, to test error paths.
 *
 * @example
 * ```ts
 * import { reply } from '@rxagents/core';
 * import { failingAgent } from '@rxagents/testing';
 *
 * const broken = failingAgent('broken', new Error('model unavailable'), { mode: 'reject' });
 * reply(broken, 'hi').subscribe({ error: (error) => console.log(error.message) });
 * // Agent "broken" failed: model unavailable
 * ```
 */
export function failingAgent(id: string, error: unknown = new Error(`${id} failed`), options: FailingAgentOptions = {}): Agent & { readonly callCount: number } {
  const { mode = 'error', delay = 0, scheduler = asyncScheduler } = options;
  let callCount = 0;
  return {
    id,
    ...(options.name === undefined ? {} : { name: options.name }),
    get callCount() {
      return callCount;
    },
    chat(): ObservableInput<string> {
      callCount += 1;
      if (mode === 'throw') throw error;
      if (mode === 'reject') return Promise.reject(error);
      return timer(delay, scheduler).pipe(mergeMap(() => throwError(() => error)));
    },
  };
}
