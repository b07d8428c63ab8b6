import { asyncScheduler, concat, defer, dematerialize, map, merge, mergeMap, type Observable, of, type SchedulerLike, throwError, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { ObservableNotification } from 'rxjs';

/**
 * What a scripted agent answers with.
 *
 * - a string: the whole reply, at once (or after `delay`);
 * - `{ reply, delay? }`: the same, after `delay` ms;
 * - `{ chunks, delay?, interval? }`: the chunks, the first after `delay` ms, the rest `interval` ms apart;
 * - `{ marbles, values?, error? }`: a marble diagram, one frame per virtual millisecond (`-` is 1 ms,
 *   `|` completes, `#` errors with `error`), e.g. `'--a-b|'` with `values: { a: 'Hel', b: 'lo' }`;
 * - `{ error, delay? }`: fail with `error` after `delay` ms.
 *
 * @remarks
 * Delays run on the scripted agent's scheduler, so inside `TestScheduler.run` they cost no real time.
 *
 * @example
 * ```ts
 * import { deepStrictEqual } from 'node:assert';
 * import { TestScheduler } from 'rxjs/testing';
 * import { reply } from '@rxagents/core';
 * import { scriptedAgent, type ScriptAnswer } from '@rxagents/testing';
 *
 * const answer: ScriptAnswer = { marbles: '--a-b|', values: { a: 'Hel', b: 'lo' } };
 * new TestScheduler(deepStrictEqual).run(({ expectObservable }) => {
 *   expectObservable(reply(scriptedAgent('greeter', answer), 'hi')).toBe('-----(x|)', { x: 'Hello' });
 * });
 * ```
 */
export type ScriptAnswer =
  | string
  | { readonly reply: string; readonly delay?: number }
  | { readonly chunks: readonly string[]; readonly delay?: number; readonly interval?: number }
  | { readonly marbles: string; readonly values?: Readonly<Record<string, string>>; readonly error?: unknown }
  | { readonly error: unknown; readonly delay?: number };

/**
 * Turns a {@link ScriptAnswer} into the chunk Observable an agent returns, timed on `scheduler`.
 *
 * @example
 * ```ts
 * import { answerToObservable } from '@rxagents/testing';
 *
 * answerToObservable({ chunks: ['Hel', 'lo'], interval: 10 }).subscribe(console.log);
 * ```
 */
export function answerToObservable(answer: ScriptAnswer, scheduler: SchedulerLike = asyncScheduler): Observable<string> {
  if (typeof answer === 'string') return of(answer);
  if ('marbles' in answer) return fromMarbles(answer.marbles, answer.values, answer.error, scheduler);
  if ('chunks' in answer) {
    const { chunks, delay = 0, interval = 0 } = answer;
    return defer(() => concat(...chunks.map((chunk, index) => after(index === 0 ? delay : interval, scheduler).pipe(map(() => chunk)))));
  }
  if ('reply' in answer) return after(answer.delay ?? 0, scheduler).pipe(map(() => answer.reply));
  const { error, delay = 0 } = answer;
  return after(delay, scheduler).pipe(mergeMap(() => throwError(() => error)));
}

function after(ms: number, scheduler: SchedulerLike): Observable<0> {
  return ms > 0 ? timer(ms, scheduler).pipe(map(() => 0 as const)) : of(0 as const);
}

function fromMarbles(
  marbles: string,
  values: Readonly<Record<string, string>> | undefined,
  error: unknown,
  scheduler: SchedulerLike,
): Observable<string> {
  const frames = MillisecondMarbles.parseMarbles(marbles, values, error, false, true) as Array<{
    frame: number;
    notification: ObservableNotification<string>;
  }>;
  return merge(...frames.map(({ frame, notification }) => after(frame, scheduler).pipe(map(() => notification)))).pipe(
    dematerialize(),
  );
}

// One frame per millisecond, in and out of `TestScheduler.run`. `TestScheduler.frameTimeFactor` is 10
// outside `run()`, where parsing '100ms' gives 100 frames but '-' gives 10, so no division fixes both.
class MillisecondMarbles extends TestScheduler {
  static override frameTimeFactor = 1;
}
