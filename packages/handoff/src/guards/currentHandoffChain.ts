import { z } from 'zod';
import { configRules, parseConfig } from '@rxagents/core';

/** The part of Node's `AsyncLocalStorage` this module uses; declared locally so browsers load the package. */
interface ChainStorage {
  getStore(): readonly string[] | undefined;
  run<R, A extends unknown[]>(store: readonly string[], fn: (...args: A) => R, ...args: A): R;
}

interface AsyncHooksModule {
  readonly AsyncLocalStorage?: new () => ChainStorage;
}

interface ProcessWithBuiltins {
  readonly getBuiltinModule?: (id: string) => unknown;
}

const EMPTY_CHAIN: readonly string[] = Object.freeze([]);

function createStorage(): ChainStorage | undefined {
  try {
    const process = (globalThis as { process?: ProcessWithBuiltins }).process;
    const hooks = process?.getBuiltinModule?.('node:async_hooks') as AsyncHooksModule | undefined;
    return hooks?.AsyncLocalStorage === undefined ? undefined : new hooks.AsyncLocalStorage();
  } catch {
    return undefined;
  }
}

const storage = createStorage();

/** The module-level fallback chain DESIGN.md allows, used only where `AsyncLocalStorage` is missing. */
let fallbackChain: readonly string[] = EMPTY_CHAIN;

/**
 * The handoff chain in scope: the ids of the agents already traversed to reach this point, oldest first.
 *
 * @remarks
 * Inside an agent called by a handoff (including after an `await` in its `chat`) this is the chain
 * that handoff runs under, so a nested handoff extends it and its cycle and depth guards see it. At the
 * top level it is empty. Where the runtime has `AsyncLocalStorage` (Node >= 20.16, Deno, Bun) the chain
 * follows the async context; elsewhere (browsers, Node 18) a module-level fallback holds it, which is
 * exact for synchronous code only.
 *
 * @example
 * ```ts
 * import { currentHandoffChain, runWithHandoffChain } from '@rxagents/handoff';
 *
 * runWithHandoffChain(['intake', 'triage'], () => console.log(currentHandoffChain())); // [ 'intake', 'triage' ]
 * console.log(currentHandoffChain()); // []
 * ```
 */
export function currentHandoffChain(): readonly string[] {
  if (storage !== undefined) return storage.getStore() ?? EMPTY_CHAIN;
  return fallbackChain;
}

/**
 * How many handoffs the chain in scope holds: the length of {@link currentHandoffChain}.
 *
 * @example
 * ```ts
 * import { currentHandoffDepth, runWithHandoffChain } from '@rxagents/handoff';
 *
 * runWithHandoffChain(['intake', 'triage'], () => console.log(currentHandoffDepth())); // 2
 * ```
 */
export function currentHandoffDepth(): number {
  return currentHandoffChain().length;
}

/**
 * Runs `fn` (with `args`, if given) with `chain` as the handoff chain in scope, and returns what it returns.
 *
 * @remarks
 * With `AsyncLocalStorage`, everything `fn` starts (Promises, timers, RxJS subscriptions) sees the
 * chain, even after `await`. With the fallback, the chain is set for the synchronous part of `fn` and
 * restored afterwards (when `fn` returns a Promise, once it settles). The chain is copied and frozen.
 *
 * @throws `ConfigError` when `chain` is not an array of non-blank agent ids (a single id such as
 *   `'intake'` would be read as the chain of its letters) or `fn` is not a function.
 *
 * @example
 * ```ts
 * import { currentHandoffChain, runWithHandoffChain } from '@rxagents/handoff';
 *
 * const seen = await runWithHandoffChain(['intake'], async () => {
 *   await Promise.resolve();
 *   return currentHandoffChain();
 * });
 * console.log(seen); // [ 'intake' ] (with AsyncLocalStorage)
 * ```
 */
export function runWithHandoffChain<R, A extends unknown[] = []>(chain: readonly string[], fn: (...args: A) => R, ...args: A): R {
  if (!Array.isArray(chain) || !chain.every(isId) || typeof fn !== 'function') parseConfig(RunWithChainSchema, { chain, fn }, 'runWithHandoffChain');
  return runWithChain(chain, fn, ...args);
}

const RunWithChainSchema = z.strictObject({
  chain: z.array(configRules.id(), { error: 'must be an array of agent ids' }),
  fn: configRules.function(),
});

function isId(id: unknown): boolean {
  return typeof id === 'string' && id.trim() !== '';
}

/** {@link runWithHandoffChain} without the check of its arguments, for the chains a handoff builds itself. */
export function runWithChain<R, A extends unknown[] = []>(chain: readonly string[], fn: (...args: A) => R, ...args: A): R {
  const frozen = Object.isFrozen(chain) ? chain : Object.freeze([...chain]);
  if (storage !== undefined) return storage.run(frozen, fn, ...args);
  const previous = fallbackChain;
  fallbackChain = frozen;
  let result: R;
  try {
    result = fn(...args);
  } catch (error) {
    fallbackChain = previous;
    throw error;
  }
  if (isThenable(result)) {
    const restore = (): void => {
      if (fallbackChain === frozen) fallbackChain = previous;
    };
    result.then(restore, restore);
  } else {
    fallbackChain = previous;
  }
  return result;
}

/**
 * {@link runWithHandoffChain} for a handoff's own calls: `fn` of three arguments, without the arrays of a
 * rest parameter (two calls per handoff).
 */
export function runUnderHandoffChain<A, B, C, R>(chain: readonly string[], fn: (a: A, b: B, c: C) => R, a: A, b: B, c: C): R {
  if (storage === undefined) return runWithChain(chain, fn, a, b, c);
  return storage.run(Object.isFrozen(chain) ? chain : Object.freeze([...chain]), fn, a, b, c);
}

/**
 * Clears the module-level fallback chain (used where `AsyncLocalStorage` is unavailable).
 *
 * @remarks
 * Call it between tests or requests in runtimes without `AsyncLocalStorage`, after an exception
 * escaped an unusual flow. With `AsyncLocalStorage` it has nothing to clear.
 *
 * @example
 * ```ts
 * import { currentHandoffChain, resetHandoffChain } from '@rxagents/handoff';
 *
 * resetHandoffChain();
 * console.log(currentHandoffChain()); // []
 * ```
 */
export function resetHandoffChain(): void {
  fallbackChain = EMPTY_CHAIN;
}

/**
 * Whether the handoff chain follows async context (`AsyncLocalStorage`) rather than the module-level fallback.
 *
 * @example
 * ```ts
 * import { handoffChainUsesAsyncContext } from '@rxagents/handoff';
 *
 * if (!handoffChainUsesAsyncContext) console.warn('nested handoffs after an await will not see their chain');
 * ```
 */
export const handoffChainUsesAsyncContext: boolean = storage !== undefined;

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}
