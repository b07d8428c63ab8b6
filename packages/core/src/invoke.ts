import { type Observable, reduce } from 'rxjs';
import type { Agent } from './Agent';
import { checkSignal } from './internal/checkSignal';
import { lastValue, type LastValueOptions } from './lastValue';
import { type AgentCallOptions, checkCall, stream } from './stream';

/**
 * Calls an agent and emits its whole reply once: the chunks joined.
 *
 * @remarks
 * The same call as {@link stream} (cancellation, timeout, error wrapping), reduced to one emission. An
 * agent that completes without a chunk replies `''`. Use it inside a pipe (`switchMap`, `concatMap`);
 * {@link invoke} is the same call as a Promise.
 *
 * @param agent - The agent to call.
 * @param input - The prompt.
 * @param options - Timeout, scheduler, context and metadata.
 * @returns One value, the whole reply, then completes; errors as {@link stream} does.
 * @throws {@link ConfigError} synchronously when `input` is not a string or an option is unknown or invalid.
 *
 * @example
 * ```ts
 * import { defineAgent, invoke$ } from '@rxagents/core';
 *
 * const greeter = defineAgent('greeter', async (name) => `Hello, ${name}!`);
 * invoke$(greeter, 'Ada').subscribe(console.log); // Hello, Ada!
 * ```
 */
export function invoke$(agent: Agent, input: string, options?: AgentCallOptions): Observable<string> {
  return stream(agent, input, options).pipe(reduce((text, chunk) => text + chunk, ''));
}

/**
 * Options of {@link invoke}: those of every agent call, plus a `signal` that cancels it.
 *
 * @example
 * ```ts
 * import type { InvokeOptions } from '@rxagents/core';
 *
 * const options: InvokeOptions = { timeout: 30_000, signal: AbortSignal.timeout(60_000) };
 * console.log(options.timeout); // 30000
 * ```
 */
export interface InvokeOptions extends AgentCallOptions, LastValueOptions {}

/**
 * Calls an agent and resolves with its whole reply: the chunks joined.
 *
 * @remarks
 * The Promise form of {@link invoke$}, for `await` in app code. Aborting `signal` cancels the call:
 * the agent's own `AbortSignal` fires and the Promise rejects with the signal's reason. Failures
 * reject with the same errors as {@link stream} (an {@link AgentError} naming the agent, an
 * {@link AgentTimeoutError}).
 *
 * @param agent - The agent to call.
 * @param input - The prompt.
 * @param options - Timeout, scheduler, context, metadata and `signal`.
 * @returns The whole reply.
 * Invalid arguments reject (never throw, as a Promise API): with a {@link ConfigError} when `agent` is not
 * an agent, `input` is not a string or an option is unknown or invalid (a `signal` that is not an
 * `AbortSignal` too), and the agent is never called.
 *
 * @example
 * ```ts
 * import { defineAgent, invoke } from '@rxagents/core';
 *
 * const greeter = defineAgent('greeter', async (name) => `Hello, ${name}!`);
 * console.log(await invoke(greeter, 'Ada')); // Hello, Ada!
 * ```
 */
export function invoke(agent: Agent, input: string, options: InvokeOptions = {}): Promise<string> {
  let reply$: Observable<string>;
  let signal: AbortSignal | undefined;
  try {
    // Options that are not an object are refused as every agent call refuses them, not by destructuring.
    if (typeof options !== 'object' || options === null) checkCall(agent, input, options);
    const { signal: given, ...callOptions } = options;
    checkSignal(given, 'agent call options');
    signal = given;
    reply$ = invoke$(agent, input, callOptions);
  } catch (error) {
    return Promise.reject(error);
  }
  return lastValue(reply$, { signal });
}
