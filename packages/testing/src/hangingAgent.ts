import { Observable } from 'rxjs';
import { fromAbortSignal, type Agent, type ChatOptions } from '@rxagents/core';
import { z } from 'zod';
import { idIssues, issuesAt, throwIfAny } from './internal/issuesAt';
import { checkChatCall } from './internal/checkChatCall';

/**
 * An agent that never answers, and records the aborts it receives.
 *
 * @remarks
 * What {@link hangingAgent} returns. Read its counters to prove a timeout or an unsubscription reached
 * the agent's `AbortSignal`.
 *
 * @example
 * ```ts
 * import { VirtualTimeScheduler } from 'rxjs';
 * import { invoke$ } from '@rxagents/core';
 * import { hangingAgent, type HangingAgent } from '@rxagents/testing';
 *
 * const clock = new VirtualTimeScheduler();
 * const stuck: HangingAgent = hangingAgent('stuck');
 * invoke$(stuck, 'hello?', { timeout: 1_000, scheduler: clock }).subscribe({ error: (error) => console.log(error.code) });
 * clock.flush(); // AGENT_TIMEOUT
 * console.log(stuck.callCount, stuck.abortCount, stuck.aborted); // 1 1 true
 * ```
 */
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
 * @remarks
 * A call whose signal is already aborted is counted as aborted at once, with the signal's reason.
 *
 * @throws {@link @rxagents/core!ConfigError | ConfigError} when the id is blank or `details` has an unknown key.
 *
 * @example
 * ```ts
 * import { invoke$ } from '@rxagents/core';
 * import { hangingAgent } from '@rxagents/testing';
 *
 * const stuck = hangingAgent('stuck');
 * const subscription = invoke$(stuck, 'hello?').subscribe();
 * subscription.unsubscribe();
 * console.log(stuck.aborted); // true
 * ```
 */
export function hangingAgent(id: string, details: { readonly name?: string } = {}): HangingAgent {
  throwIfAny('hangingAgent', [...idIssues(id), ...issuesAt(DetailsSchema, details, 'details')]);
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
    chat(input: string, options: ChatOptions): Observable<string> {
      checkChatCall(id, input, options);
      callCount += 1;
      const { signal } = options;
      // Counts an abort that already happened too. A caller that leaves without aborting (a shared,
      // long-lived signal) takes the listener off with its subscription.
      const abort = fromAbortSignal(signal).subscribe((reason) => abortReasons.push(reason));
      return new Observable<string>(() => () => abort.unsubscribe());
    },
  };
}

const DetailsSchema = z.strictObject({ name: z.string({ error: 'must be a string' }).optional() }, { error: 'must be an object' });
