import { asyncScheduler, mergeMap, type ObservableInput, type SchedulerLike, throwError } from 'rxjs';
import { configRules, delayTimer, type Agent, type ConfigIssue } from '@rxagents/core';
import { z } from 'zod';
import { idIssues, issuesAt, throwIfAny } from './internal/issuesAt';

/**
 * How a {@link failingAgent} fails: a synchronous throw, a rejected Promise, or an erroring Observable.
 *
 * @remarks
 * {@link @rxagents/core!invoke | invoke} turns all three into the same `AgentError`; test each to cover every path an agent can fail by.
 *
 * @example
 * ```ts
 * import { invoke$ } from '@rxagents/core';
 * import { failingAgent, type FailureMode } from '@rxagents/testing';
 *
 * const modes: FailureMode[] = ['throw', 'reject', 'error'];
 * for (const mode of modes) {
 *   const agent = failingAgent(`by-${mode}`, new Error('boom'), { mode });
 *   invoke$(agent, 'hi').subscribe({ error: (error) => console.log(mode, error.name) }); // throw AgentError, ...
 * }
 * ```
 */
export type FailureMode = 'throw' | 'reject' | 'error';

/**
 * Options of {@link failingAgent}.
 *
 * @example
 * ```ts
 * import { VirtualTimeScheduler } from 'rxjs';
 * import { invoke$ } from '@rxagents/core';
 * import { failingAgent, type FailingAgentOptions } from '@rxagents/testing';
 *
 * const clock = new VirtualTimeScheduler();
 * const options: FailingAgentOptions = { mode: 'error', delay: 500, scheduler: clock, name: 'Flaky' };
 * const flaky = failingAgent('flaky', new Error('upstream timeout'), options);
 * invoke$(flaky, 'hi').subscribe({ error: (error) => console.log(clock.now(), error.message) });
 * clock.flush(); // 500 Agent "flaky" failed: upstream timeout
 * ```
 */
export interface FailingAgentOptions {
  /** How to fail. Defaults to `'error'`. */
  readonly mode?: FailureMode;
  /** For `'error'` only (a `ConfigError` with the other modes): fail after this many ms on `scheduler`, from 0 to `MAX_DELAY_MS`, or `Infinity` for never. Defaults to 0. */
  readonly delay?: number;
  readonly scheduler?: SchedulerLike;
  readonly name?: string;
}

/**
 * An agent that always fails, in the way you choose, to test error paths.
 *
 * @throws {@link @rxagents/core!ConfigError | ConfigError} when the id is blank or an option is unknown or
 * invalid (a `mode` other than the three, a `delay` outside 0 to `MAX_DELAY_MS` other than `Infinity`, a
 * `delay` with mode `'throw'` or `'reject'`, which fail at once).
 *
 * @example
 * ```ts
 * import { invoke$ } from '@rxagents/core';
 * import { failingAgent } from '@rxagents/testing';
 *
 * const broken = failingAgent('broken', new Error('model unavailable'), { mode: 'reject' });
 * invoke$(broken, 'hi').subscribe({ error: (error) => console.log(error.message) });
 * // Agent "broken" failed: model unavailable
 * ```
 */
export function failingAgent(id: string, error: unknown = new Error(`${id} failed`), options: FailingAgentOptions = {}): Agent & { readonly callCount: number } {
  throwIfAny('failingAgent', [...idIssues(id), ...issuesAt(FailingAgentOptionsSchema, options, 'options'), ...delayModeIssues(options)]);
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
      return delayTimer(delay, scheduler).pipe(mergeMap(() => throwError(() => error)));
    },
  };
}

/** A `delay` with `'throw'` or `'reject'` would be ignored (those fail at once): refused, not dropped. */
function delayModeIssues(options: FailingAgentOptions): ConfigIssue[] {
  const { mode, delay } = (typeof options === 'object' && options !== null ? options : {}) as FailingAgentOptions;
  if (delay === undefined || (mode !== 'throw' && mode !== 'reject')) return [];
  return [{ path: 'options.delay', rule: `applies to mode 'error' only (mode '${mode}' fails at once)`, received: delay }];
}

const FailingAgentOptionsSchema = z.strictObject(
  {
    mode: z.enum(['throw', 'reject', 'error']).optional(),
    delay: configRules.delayMs().optional(),
    scheduler: configRules.scheduler().optional(),
    name: z.string({ error: 'must be a string' }).optional(),
  },
  { error: 'must be an object' },
);
