import { defineAgent, type Agent } from '@rxagents/core';
import { Observable } from 'rxjs';

/** An agent that streams `chunks`, then waits until its call is aborted; `aborted` tells whether it was. */
export function hangingAgent(id: string, chunks: readonly string[]): { agent: Agent; aborted: () => boolean; started: () => boolean } {
  let aborted = false;
  let started = false;
  const agent = defineAgent(id, (_input, { signal }) => {
    started = true;
    return new Observable<string>((subscriber) => {
      for (const chunk of chunks) subscriber.next(chunk);
      const onAbort = (): void => {
        aborted = true;
      };
      signal.addEventListener('abort', onAbort, { once: true });
      return () => {
        // Unsubscribed: the run let go of the call; the signal aborts with it.
        if (signal.aborted) aborted = true;
        signal.removeEventListener('abort', onAbort);
      };
    });
  });
  return { agent, aborted: () => aborted, started: () => started };
}

/** Waits, a bounded number of event-loop turns, until `condition()` holds. */
export async function until(condition: () => boolean, what: string, turns = 2000): Promise<void> {
  for (let turn = 0; turn < turns; turn++) {
    if (condition()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`gave up waiting: ${what}`);
}
