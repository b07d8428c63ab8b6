import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { ConfigError, MAX_COUNT, MAX_DELAY_MS, type ConfigIssue } from '@rxagents/core';
import { RETRY_DEFAULTS, type CheckedEventStreamRetry } from '../EventStreamRetry';
import type { EventStreamStatus } from '../EventStreamStatus';

/** The options of `fromEventStream` once checked, with their defaults. */
export interface CheckedEventStreamOptions {
  readonly signal?: AbortSignal;
  readonly fetch?: typeof fetch;
  readonly retry: CheckedEventStreamRetry;
  readonly onStatus?: (status: EventStreamStatus) => void;
  readonly schema?: { safeParse(value: unknown): unknown };
  readonly scheduler: SchedulerLike;
  readonly maxFrameLength: number;
}

const OPTIONS = new Set(['signal', 'fetch', 'retry', 'onStatus', 'schema', 'scheduler', 'maxFrameLength']);
const RETRY = new Set(['delayMs', 'maxDelayMs', 'factor', 'jitter', 'random', 'maxAttempts', 'maxElapsedMs']);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
// The tests of `configRules.isAbortSignal` and `configRules.isScheduler`, repeated: the namespace would bring the zod rules beside them.
const isAbortSignal = (value: unknown): boolean => isObject(value) && typeof value.aborted === 'boolean' && typeof value.addEventListener === 'function';
const isScheduler = (value: unknown): boolean => isObject(value) && typeof value.now === 'function' && typeof value.schedule === 'function';
const isInt = (value: unknown, min: number): value is number => Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= MAX_COUNT;

/**
 * Checks `fromEventStream`'s options by hand, with the rules and messages of the core `configRules`:
 * a page that reads a stream does not have to bring zod for seven options.
 */
export function checkEventStreamOptions(options: unknown): CheckedEventStreamOptions {
  const issues: ConfigIssue[] = [];
  const issue = (path: string, rule: string, received: unknown): void => void issues.push({ path, rule, received });
  if (!isObject(options)) throw new ConfigError('fromEventStream options', [{ path: '', rule: 'must be an object', received: options }]);
  for (const key of Object.keys(options)) if (!OPTIONS.has(key)) issue(key, 'is not a known option', options[key]);
  const { signal, fetch, retry = {}, onStatus, schema, scheduler = asyncScheduler, maxFrameLength = 16 * 1024 * 1024 } = options;
  if (signal !== undefined && !isAbortSignal(signal)) issue('signal', 'must be an AbortSignal', signal);
  if (fetch !== undefined && typeof fetch !== 'function') issue('fetch', 'must be a function', fetch);
  if (onStatus !== undefined && typeof onStatus !== 'function') issue('onStatus', 'must be a function', onStatus);
  let checkedRetry: CheckedEventStreamRetry = { ...RETRY_DEFAULTS, random: Math.random };
  if (!isObject(retry)) issue('retry', 'must be an object', retry);
  else {
    for (const key of Object.keys(retry)) if (!RETRY.has(key)) issue(`retry.${key}`, 'is not a known option', retry[key]);
    checkedRetry = checkRetry(retry, issue);
  }
  if (schema !== undefined && typeof (schema as { safeParse?: unknown } | null)?.safeParse !== 'function') issue('schema', 'must be a zod schema', schema);
  if (!isScheduler(scheduler)) issue('scheduler', 'must be an RxJS scheduler (with now() and schedule())', scheduler);
  if (!isInt(maxFrameLength, 1)) issue('maxFrameLength', `must be a positive integer of at most ${MAX_COUNT}`, maxFrameLength);
  if (issues.length > 0) throw new ConfigError('fromEventStream options', issues);
  return {
    signal: signal as AbortSignal | undefined,
    fetch: fetch as typeof globalThis.fetch | undefined,
    retry: checkedRetry,
    onStatus: onStatus as CheckedEventStreamOptions['onStatus'],
    schema: schema as CheckedEventStreamOptions['schema'],
    scheduler: scheduler as SchedulerLike,
    maxFrameLength: maxFrameLength as number,
  };
}

/** Checks `retry`'s fields and fills in its defaults (a longer first delay raises the default cap to it). */
function checkRetry(retry: Record<string, unknown>, issue: (path: string, rule: string, received: unknown) => void): CheckedEventStreamRetry {
  const { delayMs = RETRY_DEFAULTS.delayMs, factor = RETRY_DEFAULTS.factor, jitter = RETRY_DEFAULTS.jitter, random = Math.random } = retry;
  const { maxAttempts = RETRY_DEFAULTS.maxAttempts, maxElapsedMs = RETRY_DEFAULTS.maxElapsedMs } = retry;
  const finiteMs = (path: string, value: unknown): boolean => {
    // A reconnection that waits forever would neither resume nor give up: `maxAttempts: 0` is how not to reconnect.
    if (value === Infinity) issue(path, 'must be a finite number of milliseconds (maxAttempts: 0 never reconnects)', value);
    else if (typeof value !== 'number' || !(value >= 0 && value <= MAX_DELAY_MS)) issue(path, `must be from 0 to ${MAX_DELAY_MS} ms (about 24.8 days), or Infinity for never`, value);
    else return true;
    return false;
  };
  const delayOk = finiteMs('retry.delayMs', delayMs);
  const maxDelayMs = retry['maxDelayMs'] ?? (delayOk ? Math.max(RETRY_DEFAULTS.maxDelayMs, delayMs as number) : RETRY_DEFAULTS.maxDelayMs);
  if (finiteMs('retry.maxDelayMs', maxDelayMs) && delayOk && (maxDelayMs as number) < (delayMs as number)) {
    issue('retry.maxDelayMs', `must be at least retry.delayMs (${delayMs as number})`, maxDelayMs);
  }
  if (typeof factor !== 'number' || !(factor >= 1 && factor <= 1_000)) issue('retry.factor', 'must be a number from 1 to 1000', factor);
  if (typeof jitter !== 'number' || !(jitter >= 0 && jitter <= 1)) issue('retry.jitter', 'must be a number from 0 to 1', jitter);
  if (typeof random !== 'function') issue('retry.random', 'must be a function', random);
  if (maxAttempts !== Infinity && !isInt(maxAttempts, 0)) issue('retry.maxAttempts', `must be a non-negative integer of at most ${MAX_COUNT}`, maxAttempts);
  if (maxElapsedMs !== Infinity && !(typeof maxElapsedMs === 'number' && maxElapsedMs >= 0 && maxElapsedMs <= MAX_DELAY_MS)) {
    issue('retry.maxElapsedMs', `must be from 0 to ${MAX_DELAY_MS} ms (about 24.8 days), or Infinity for never giving up`, maxElapsedMs);
  }
  return { delayMs, maxDelayMs, factor, jitter, random, maxAttempts, maxElapsedMs } as CheckedEventStreamRetry;
}
