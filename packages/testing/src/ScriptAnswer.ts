import { configRules, MAX_DELAY_MS, type ConfigIssue } from '@rxagents/core';
import { asyncScheduler, dematerialize, EMPTY, map, merge, mergeMap, type Observable, of, type SchedulerLike, throwError } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { ObservableNotification } from 'rxjs';
import { z } from 'zod';
import { after } from './internal/after';
import { issuesAt, throwIfAny } from './internal/issuesAt';
import { sequence } from './internal/sequence';

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
 * Every delay and interval is from 0 to `MAX_DELAY_MS` (about 24.8 days), or `Infinity` for never (an
 * answer that never comes, like a hanging model); a marble diagram may last at most `MAX_DELAY_MS`. Each
 * shape is strict: a misspelled field (`dealy`) is a `ConfigError`, never silently ignored.
 *
 * @example
 * ```ts
 * import { deepStrictEqual } from 'node:assert';
 * import { TestScheduler } from 'rxjs/testing';
 * import { invoke$ } from '@rxagents/core';
 * import { scriptedAgent, type ScriptAnswer } from '@rxagents/testing';
 *
 * const answer: ScriptAnswer = { marbles: '--a-b|', values: { a: 'Hel', b: 'lo' } };
 * new TestScheduler(deepStrictEqual).run(({ expectObservable }) => {
 *   expectObservable(invoke$(scriptedAgent('greeter', answer), 'hi')).toBe('-----(x|)', { x: 'Hello' });
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
 * @throws {@link @rxagents/core!ConfigError | ConfigError} when the answer has no known shape, an unknown
 * field, a delay outside 0 to `MAX_DELAY_MS` (other than `Infinity`) or an invalid marble diagram, or
 * `scheduler` is not a scheduler.
 *
 * @example
 * ```ts
 * import { answerToObservable } from '@rxagents/testing';
 *
 * answerToObservable({ chunks: ['Hel', 'lo'], interval: 10 }).subscribe(console.log);
 * ```
 */
export function answerToObservable(answer: ScriptAnswer, scheduler: SchedulerLike = asyncScheduler): Observable<string> {
  throwIfAny('script answer', [...answerIssues(answer, ''), ...issuesAt(SchedulerSchema, scheduler, 'scheduler')]);
  return observeAnswer(answer, scheduler);
}

/** @internal What is wrong with `answer`, its paths under `path`. */
export function answerIssues(answer: unknown, path: string): ConfigIssue[] {
  return issuesAt(answerSchema(answer), answer, path);
}

/** @internal {@link answerToObservable} for an answer already checked by {@link answerIssues}. */
export function observeAnswer(answer: ScriptAnswer, scheduler: SchedulerLike): Observable<string> {
  if (typeof answer === 'string') return of(answer);
  if ('marbles' in answer) return fromMarbles(answer.marbles, answer.values, answer.error, scheduler);
  if ('chunks' in answer) {
    const { chunks, delay = 0, interval = 0 } = answer;
    if (chunks.length === 0) return EMPTY;
    // Without an interval the chunks come in one synchronous burst after the delay: emitted by one loop, as
    // `concat` of synchronous parts after an asynchronous first one recurses once per part (and stalls).
    if (interval === 0) return after(delay, scheduler).pipe(mergeMap(() => chunks));
    return sequence(chunks.map((chunk, index) => after(index === 0 ? delay : interval, scheduler).pipe(map(() => chunk))));
  }
  if ('reply' in answer) return after(answer.delay ?? 0, scheduler).pipe(map(() => answer.reply));
  const { error, delay = 0 } = answer;
  return after(delay, scheduler).pipe(mergeMap(() => throwError(() => error)));
}

const SHAPES = 'must be a string, { reply }, { chunks }, { marbles } or { error }';

const delay = () => configRules.delayMs().optional();

const StringSchema = z.string();
const NoShapeSchema = z.custom(() => false, { error: SHAPES });
const SchedulerSchema = configRules.scheduler();

const ReplySchema = z.strictObject({ reply: z.string({ error: 'must be a string' }), delay: delay() });
const ChunksSchema = z.strictObject({
  chunks: z.array(z.string({ error: 'must be a string' }), { error: 'must be an array of strings' }),
  delay: delay(),
  interval: delay(),
});
const ErrorSchema = z.strictObject({ error: z.unknown().optional(), delay: delay() });
const MarblesSchema = z
  .strictObject({
    marbles: z.string({ error: 'must be a string' }),
    values: z.record(z.string(), z.string({ error: 'must be a string' }), { error: 'must be an object of marble characters to chunks' }).optional(),
    error: z.unknown().optional(),
  })
  .superRefine((answer, context) => {
    for (const { path, message, input } of marbleIssues(answer.marbles, answer.values)) context.addIssue({ code: 'custom', path, message, input });
  });

// The shape is chosen by its defining key, in the order `observeAnswer` reads them, so issues name the field.
function answerSchema(answer: unknown): z.ZodType {
  if (typeof answer === 'string') return StringSchema;
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return NoShapeSchema;
  if ('marbles' in answer) return MarblesSchema;
  if ('chunks' in answer) return ChunksSchema;
  if ('reply' in answer) return ReplySchema;
  if ('error' in answer) return ErrorSchema;
  return NoShapeSchema;
}

interface MarbleIssue {
  readonly path: string[];
  readonly message: string;
  readonly input: unknown;
}

function marbleIssues(marbles: string, values: Readonly<Record<string, string>> | undefined): MarbleIssue[] {
  if (/[!^]/.test(marbles)) return [{ path: ['marbles'], message: 'cannot contain ^ or ! (a scripted answer starts when the agent is called)', input: marbles }];
  if (!groupsBalanced(marbles)) return [{ path: ['marbles'], message: 'is not a valid marble diagram (a group opened with ( must close with ), without nesting)', input: marbles }];
  const frames = parse(marbles, undefined, undefined);
  const issues: MarbleIssue[] = [];
  const last = frames.reduce((latest, { frame }) => Math.max(latest, frame), 0);
  if (last > MAX_DELAY_MS) issues.push({ path: ['marbles'], message: `must last at most ${MAX_DELAY_MS} ms (about 24.8 days), the longest a timer can wait`, input: marbles });
  if (values !== undefined) {
    const missing = new Set<string>();
    for (const { notification } of frames) {
      if (notification.kind === 'N' && !Object.hasOwn(values, notification.value)) missing.add(notification.value);
    }
    for (const character of missing) issues.push({ path: ['values'], message: `is missing ${JSON.stringify(character)}, a character of the marble diagram`, input: values });
  }
  return issues;
}

// RxJS's parser accepts an unclosed or nested group and times it wrongly instead of saying so.
function groupsBalanced(marbles: string): boolean {
  let open = false;
  for (const character of marbles) {
    if (character === '(') {
      if (open) return false;
      open = true;
    } else if (character === ')') {
      if (!open) return false;
      open = false;
    }
  }
  return !open;
}

interface MarbleFrame {
  readonly frame: number;
  readonly notification: ObservableNotification<string>;
}

function parse(marbles: string, values: Readonly<Record<string, string>> | undefined, error: unknown): MarbleFrame[] {
  return MillisecondMarbles.parseMarbles(marbles, values, error, false, true) as MarbleFrame[];
}

function fromMarbles(
  marbles: string,
  values: Readonly<Record<string, string>> | undefined,
  error: unknown,
  scheduler: SchedulerLike,
): Observable<string> {
  const frames = parse(marbles, values, error);
  return merge(...frames.map(({ frame, notification }) => after(frame, scheduler).pipe(map(() => notification)))).pipe(dematerialize());
}

// One frame per millisecond, in and out of `TestScheduler.run`. `TestScheduler.frameTimeFactor` is 10
// outside `run()`, where parsing '100ms' gives 100 frames but '-' gives 10, so no division fixes both.
class MillisecondMarbles extends TestScheduler {
  static override frameTimeFactor = 1;
}
