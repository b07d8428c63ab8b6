import { NEVER, type Observable } from 'rxjs';
import type { Agent, ChatOptions } from '@rxagents/core';

/** An agent that never answers, and records the aborts it receives. */
export interface HangingAgent extends Agent {
  /** How many times `chat` was called. */
  readonly callCount: number;
  /** How many of those calls were aborted. */
  readonly abortCount: number;
  /** Whether every call so far was aborted (and at least one was made). */
  readonly aborted: boolean;
  /** The abort reasons received, in order. */
  readonly abortReasons: readonly unknown[];
}

/**
 * An agent that never answers: for timeouts and cancellation tests.
 *
 * @example
 * ```ts
 * import { reply } from '@rxagents/core';
 * import { hangingAgent } from '@rxagents/testing';
 *
 * const stuck = hangingAgent('stuck');
 * const subscription = reply(stuck, 'hello?').subscribe();
 * subscription.unsubscribe();
 * console.log(stuck.aborted); // true
 * ```
 */
export function hangingAgent(id: string, details: { readonly name?: string } = {}): HangingAgent {
  let callCount = 0;
  const abortReasons: unknown[] = [];
  return {
    id,
    ...(details.name === undefined ? {} : { name: details.name }),
    get callCount() {
      return callCount;
    },
    get abortCount() {
      return abortReasons.length;
    },
    get aborted() {
      return callCount > 0 && abortReasons.length === callCount;
    },
    get abortReasons() {
      return abortReasons;
    },
    chat(_input: string, options: ChatOptions): Observable<string> {
      callCount += 1;
      options.signal.addEventListener('abort', () => abortReasons.push(options.signal.reason), { once: true });
      return NEVER;
    },
  };
}
