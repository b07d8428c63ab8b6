import { defer, Observable } from 'rxjs';
import { fromAbortSignal, type Agent, type ChatOptions } from '@rxagents/core';

/** @internal What {@link answeringAgent} returns: an agent and the records of its calls (`ScriptedAgent`'s shape). */
export interface AnsweringAgent extends Agent {
  readonly inputs: readonly string[];
  readonly calls: readonly { readonly input: string; readonly options: ChatOptions }[];
  readonly abortCount: number;
}

/** @internal The name, role and goal copied onto an agent. */
export interface AgentDetails {
  readonly name?: string | undefined;
  readonly role?: string | undefined;
  readonly goal?: string | undefined;
}

/**
 * @internal An agent whose every call answers with `answer(input, options, callIndex)` (subscribed when the
 * caller subscribes), recording each call and counting aborts that come before the answer finished.
 *
 * A call whose signal is already aborted runs no answer code: it fails with the signal's reason and counts as
 * aborted. What `answer` throws fails the call. Shared by every agent of this package that answers on a scheduler.
 */
export function answeringAgent(id: string, details: AgentDetails, answer: (input: string, options: ChatOptions, callIndex: number) => Observable<string>): AnsweringAgent {
  const calls: { input: string; options: ChatOptions }[] = [];
  let abortCount = 0;
  return {
    id,
    ...(details.name === undefined ? {} : { name: details.name }),
    ...(details.role === undefined ? {} : { role: details.role }),
    ...(details.goal === undefined ? {} : { goal: details.goal }),
    get inputs() {
      return calls.map((call) => call.input);
    },
    get calls() {
      return calls;
    },
    get abortCount() {
      return abortCount;
    },
    chat(input: string, chatOptions: ChatOptions): Observable<string> {
      const callIndex = calls.length;
      calls.push({ input, options: chatOptions });
      const { signal } = chatOptions;
      // Counted once per call, whenever it comes before the answer finished, and before any answer code runs.
      let counted = false;
      const onAbort = (): void => {
        if (counted) return;
        counted = true;
        abortCount += 1;
      };
      const abort = fromAbortSignal(signal).subscribe(onAbort);
      return new Observable<string>((subscriber) => {
        if (signal.aborted) {
          onAbort();
          subscriber.error(signal.reason);
          return;
        }
        const subscription = defer(() => answer(input, chatOptions, callIndex)).subscribe({
          next: (chunk) => subscriber.next(chunk),
          error: (error: unknown) => {
            abort.unsubscribe();
            subscriber.error(error);
          },
          complete: () => {
            abort.unsubscribe();
            subscriber.complete();
          },
        });
        return () => {
          subscription.unsubscribe();
          // A caller that leaves without aborting (a shared, long-lived signal) must not keep a listener on it.
          abort.unsubscribe();
        };
      });
    },
  };
}
