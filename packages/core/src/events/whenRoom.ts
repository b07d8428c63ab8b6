import { ConfigError } from '../errors/ConfigError';
import type { RunContext } from './RunContext';

/**
 * Runs `go` once a paced run has room for what `go` emits: at once when the run has room or is not paced,
 * otherwise when its reader frees some, asking again after every wake.
 *
 * @remarks
 * For code that pulls a reply piece by piece (a model SDK's stream, a queue, a socket) and wants a slow
 * reader of the run's events to hold it back, as agent calls do for an `AsyncIterable` agent: call it
 * before giving each piece, and pull the next piece only from `go`. Every call waiting on a full buffer
 * wakes when room frees, so each asks `pace` again and only those that still find room go on; the others
 * wait for the next room. Nothing runs once `subscriber` is closed. A `pace` that throws, or a gate that
 * rejects, goes to `fail` instead.
 *
 * @param pace - The run's pacing (`RunContext.pace`); `undefined` for a run that is not paced.
 * @param subscriber - Whoever waits: once it is closed, neither `go` nor `fail` runs.
 * @param go - What to do when there is room (give the piece, pull the next one).
 * @param fail - What to do with the error of a `pace` that throws or a gate that rejects.
 *
 * @example
 * ```ts
 * import { whenRoom } from '@rxagents/core';
 * import { Subscription } from 'rxjs';
 *
 * // A reader with no room until it reads: the piece waits for it.
 * let room = false;
 * let read!: () => void;
 * const pace = () => (room ? undefined : new Promise<void>((resolve) => (read = resolve)));
 * whenRoom(pace, new Subscription(), () => console.log('given'), console.error);
 * room = true;
 * read(); // given
 * ```
 */
export function whenRoom(pace: RunContext['pace'], subscriber: { readonly closed: boolean }, go: () => void, fail: (error: unknown) => void): void {
  if ((pace !== undefined && typeof pace !== 'function') || typeof subscriber !== 'object' || subscriber === null || typeof go !== 'function' || typeof fail !== 'function') {
    refuseArguments(pace, subscriber, go, fail);
  }
  let gate: PromiseLike<void> | undefined;
  try {
    gate = pace?.();
  } catch (error) {
    fail(error);
    return;
  }
  if (gate === undefined) {
    go();
    return;
  }
  // `Promise.resolve` adopts the gate, so a gate whose `then` throws is a rejection here too.
  Promise.resolve(gate).then(
    () => {
      if (!subscriber.closed) whenRoom(pace, subscriber, go, fail);
    },
    (error: unknown) => {
      if (!subscriber.closed) fail(error);
    },
  );
}

function refuseArguments(pace: unknown, subscriber: unknown, go: unknown, fail: unknown): never {
  const issues = [];
  if (pace !== undefined && typeof pace !== 'function') issues.push({ path: 'pace', rule: 'must be a function or undefined', received: pace });
  if (typeof subscriber !== 'object' || subscriber === null) issues.push({ path: 'subscriber', rule: 'must be an object with closed', received: subscriber });
  if (typeof go !== 'function') issues.push({ path: 'go', rule: 'must be a function', received: go });
  if (typeof fail !== 'function') issues.push({ path: 'fail', rule: 'must be a function', received: fail });
  throw new ConfigError('whenRoom', issues);
}
