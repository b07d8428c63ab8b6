import { type Observable, reduce } from 'rxjs';
import type { Agent } from './Agent';
import { invoke, type InvokeOptions } from './invoke';

/**
 * Calls an agent and emits its whole reply once: the chunks joined.
 *
 * @remarks
 * The same as {@link invoke} (cancellation, timeout, error wrapping), reduced to one emission. An
 * agent that completes without a chunk replies `''`.
 *
 * @example
 * ```ts
 * import { defineAgent, reply } from '@rxagents/core';
 * import { lastValueFrom } from 'rxjs';
 *
 * const greeter = defineAgent('greeter', async (name) => `Hello, ${name}!`);
 * const text = await lastValueFrom(reply(greeter, 'Ada'));
 * console.log(text); // Hello, Ada!
 * ```
 */
export function reply(agent: Agent, input: string, options?: InvokeOptions): Observable<string> {
  return invoke(agent, input, options).pipe(reduce((text, chunk) => text + chunk, ''));
}
