import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { ConfigError, MAX_COUNT, MAX_DELAY_MS, type ConfigIssue } from '@rxagents/core';

/** The options of `fromEventStream` once checked, with their defaults. */
export interface CheckedEventStreamOptions {
  readonly signal?: AbortSignal;
  readonly fetch?: typeof fetch;
  readonly retry: { readonly delayMs: number; readonly maxAttempts: number };
  readonly schema?: { safeParse(value: unknown): unknown };
  readonly scheduler: SchedulerLike;
  readonly maxFrameLength: number;
}

const OPTIONS = new Set(['signal', 'fetch', 'retry', 'schema', 'scheduler', 'maxFrameLength']);
const RETRY = new Set(['delayMs', 'maxAttempts']);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
// The tests of `configRules.isAbortSignal` and `configRules.isScheduler`, repeated: the namespace would bring the zod rules beside them.
const isAbortSignal = (value: unknown): boolean => isObject(value) && typeof value.aborted === 'boolean' && typeof value.addEventListener === 'function';
const isScheduler = (value: unknown): boolean => isObject(value) && typeof value.now === 'function' && typeof value.schedule === 'function';
const isInt = (value: unknown, min: number): value is number => Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= MAX_COUNT;

/**
 * Checks `fromEventStream`'s options by hand, with the rules and messages of the core `configRules`:
 * a page that reads a stream does not have to bring zod for six options.
 */
export function checkEventStreamOptions(options: unknown): CheckedEventStreamOptions {
  const issues: ConfigIssue[] = [];
  const issue = (path: string, rule: string, received: unknown): void => void issues.push({ path, rule, received });
  if (!isObject(options)) throw new ConfigError('fromEventStream options', [{ path: '', rule: 'must be an object', received: options }]);
  for (const key of Object.keys(options)) if (!OPTIONS.has(key)) issue(key, 'is not a known option', options[key]);
  const { signal, fetch, retry = {}, schema, scheduler = asyncScheduler, maxFrameLength = 16 * 1024 * 1024 } = options;
  if (signal !== undefined && !isAbortSignal(signal)) issue('signal', 'must be an AbortSignal', signal);
  if (fetch !== undefined && typeof fetch !== 'function') issue('fetch', 'must be a function', fetch);
  let delayMs = 1_000;
  let maxAttempts = 3;
  if (!isObject(retry)) issue('retry', 'must be an object', retry);
  else {
    for (const key of Object.keys(retry)) if (!RETRY.has(key)) issue(`retry.${key}`, 'is not a known option', retry[key]);
    delayMs = (retry.delayMs ?? delayMs) as number;
    maxAttempts = (retry.maxAttempts ?? maxAttempts) as number;
    // A reconnection that waits forever would neither resume nor give up: `maxAttempts: 0` is how not to reconnect.
    if (delayMs === Infinity) issue('retry.delayMs', 'must be a finite number of milliseconds (maxAttempts: 0 never reconnects)', delayMs);
    else if (typeof delayMs !== 'number' || !(delayMs >= 0 && delayMs <= MAX_DELAY_MS)) {
      issue('retry.delayMs', `must be from 0 to ${MAX_DELAY_MS} ms (about 24.8 days), or Infinity for never`, delayMs);
    }
    if (!isInt(maxAttempts, 0)) issue('retry.maxAttempts', `must be a non-negative integer of at most ${MAX_COUNT}`, maxAttempts);
  }
  if (schema !== undefined && typeof (schema as { safeParse?: unknown } | null)?.safeParse !== 'function') issue('schema', 'must be a zod schema', schema);
  if (!isScheduler(scheduler)) issue('scheduler', 'must be an RxJS scheduler (with now() and schedule())', scheduler);
  if (!isInt(maxFrameLength, 1)) issue('maxFrameLength', `must be a positive integer of at most ${MAX_COUNT}`, maxFrameLength);
  if (issues.length > 0) throw new ConfigError('fromEventStream options', issues);
  return {
    signal: signal as AbortSignal | undefined,
    fetch: fetch as typeof globalThis.fetch | undefined,
    retry: { delayMs, maxAttempts },
    schema: schema as CheckedEventStreamOptions['schema'],
    scheduler: scheduler as SchedulerLike,
    maxFrameLength: maxFrameLength as number,
  };
}
