import type { SchedulerLike } from 'rxjs';
import * as z from 'zod';
import type { RunContext } from './events/RunContext';
import type { RunStore } from './store/RunStore';
import { MAX_COUNT, MAX_DELAY_MS } from './limits';

// zod's number() refuses Infinity, which these rules accept as "never".
const millis = (error: string) => z.union([z.number(), z.literal(Infinity)], { error });

const delayRule = `from 0 to ${MAX_DELAY_MS} ms (about 24.8 days), or Infinity for never`;
const timeoutRule = `a number of milliseconds greater than 0 and at most ${MAX_DELAY_MS} (about 24.8 days), or Infinity for no timeout`;

// Reusable zod rules whose messages read well in a ConfigError; exported from the package as the
// module namespace `configRules` (`configRules.positiveInt()`).

/**
 * An integer greater than zero and at most `max` (default {@link MAX_COUNT}): a count the
 * implementation can honour, so a huge value is a `ConfigError`, never a `RangeError` later.
 */
export const positiveInt = (max: number = MAX_COUNT) =>
  z
    .number({ error: 'must be a positive integer' })
    .int('must be a positive integer')
    .positive('must be a positive integer')
    .max(max, `must be a positive integer of at most ${max}`);

/** An integer of zero or more, at most `max` (default {@link MAX_COUNT}). */
export const nonNegativeInt = (max: number = MAX_COUNT) =>
  z
    .number({ error: 'must be a non-negative integer' })
    .int('must be a non-negative integer')
    .nonnegative('must be a non-negative integer')
    .max(max, `must be a non-negative integer of at most ${max}`);

/**
 * A timeout in milliseconds: greater than 0 and at most {@link MAX_DELAY_MS}, or `Infinity` for "no
 * timeout". Larger finite values are refused because the platform's timers cannot wait that long
 * (Node fires them after 1 ms). Schedule with {@link scheduleDelay} or {@link delayTimer}, which
 * never fire for `Infinity`.
 */
export const timeoutMs = () => millis(`must be ${timeoutRule}`).refine((ms) => ms === Infinity || (ms > 0 && ms <= MAX_DELAY_MS), `must be ${timeoutRule}`);

/**
 * A delay or interval in milliseconds: from 0 to {@link MAX_DELAY_MS}, or `Infinity` for "never".
 * Schedule with {@link scheduleDelay} or {@link delayTimer}.
 */
export const delayMs = () => millis(`must be ${delayRule}`).refine((ms) => ms === Infinity || (ms >= 0 && ms <= MAX_DELAY_MS), `must be ${delayRule}`);

/** An id: a string with at least one character that is not whitespace. */
export const id = () =>
  z
    .string({ error: 'must be a non-blank string' })
    .refine((id) => id.trim().length > 0, 'must be a non-blank string');

/** Any integer (negative values often mean "disabled" in PraisonAI-style settings). */
export const int = () => z.number({ error: 'must be an integer' }).int('must be an integer');

/** A finite number of zero or more, such as a duration in milliseconds. */
export const nonNegativeNumber = () =>
  z.number({ error: 'must be a non-negative number' }).finite('must be a non-negative number').nonnegative('must be a non-negative number');

/** A finite number greater than zero, such as a timeout in milliseconds. */
export const positiveNumber = () => z.number({ error: 'must be a positive number' }).finite('must be a positive number').positive('must be a positive number');

/** A string with at least one character. */
export const nonEmptyString = () => z.string({ error: 'must be a non-empty string' }).min(1, 'must be a non-empty string');

/** A function. */
const functionRule = <T extends (...args: never[]) => unknown>() =>
  z.custom<T>((value) => typeof value === 'function', { error: 'must be a function' });
export { functionRule as function };

/** An RxJS scheduler (anything with `now()` and `schedule()`). */
export const scheduler = () => z.custom<SchedulerLike>(isScheduler, { error: 'must be an RxJS scheduler (with now() and schedule())' });

/** Whether `value` is what {@link scheduler} accepts: an object with `now()` and `schedule()`. */
export function isScheduler(value: unknown): value is SchedulerLike {
  return typeof value === 'object' && value !== null && typeof (value as SchedulerLike).now === 'function' && typeof (value as SchedulerLike).schedule === 'function';
}

/** An `AbortSignal`. */
export const abortSignal = () => z.custom<AbortSignal>(isAbortSignal, { error: 'must be an AbortSignal' });

/** Whether `value` is what {@link abortSignal} accepts: an object with a boolean `aborted` and `addEventListener()`. */
export function isAbortSignal(value: unknown): value is AbortSignal {
  return typeof value === 'object' && value !== null && typeof (value as AbortSignal).aborted === 'boolean' && typeof (value as AbortSignal).addEventListener === 'function';
}

/** A {@link RunContext}: the `run` option that nests a primitive's events in a caller's run (usually `ChatOptions.run`). */
export const runContext = () => z.custom<RunContext>(isRunContext, { error: 'must be a run context ({ runId, callId, scheduler, emit })' });

/** Whether `value` looks like a {@link RunContext}: what the `run` option of every runnable accepts. */
export function isRunContext(value: unknown): value is RunContext {
  const run = value as Partial<RunContext> | null;
  return typeof run === 'object' && run !== null && typeof run.runId === 'string' && typeof run.emit === 'function' && typeof run.scheduler?.now === 'function';
}

/** The options of every runnable's `events$`: `pace`, the pacing function a slow reader gives (`runEventStream`). */
export const runEventsOptions = () =>
  z.strictObject({ pace: z.custom<RunContext['pace']>((value) => typeof value === 'function', { error: 'must be a function' }).optional() });

/** A {@link RunStore}: an object with the store's methods (`append`, `read`, `summary`, `acquireLease`, `renewLease`, `releaseLease`). */
export const runStore = () => z.custom<RunStore>(isRunStore, { error: 'must be a run store (with append, read, summary, acquireLease, renewLease and releaseLease)' });

/** Whether `value` is what {@link runStore} accepts. */
export function isRunStore(value: unknown): value is RunStore {
  const store = value as Partial<RunStore> | null;
  return (
    typeof store === 'object' &&
    store !== null &&
    typeof store.append === 'function' &&
    typeof store.read === 'function' &&
    typeof store.summary === 'function' &&
    typeof store.acquireLease === 'function' &&
    typeof store.renewLease === 'function' &&
    typeof store.releaseLease === 'function'
  );
}

/** The longest lease owner a store records. */
const MAX_LEASE_OWNER_LENGTH = 200;

const ownerRule = `a non-blank string of at most ${MAX_LEASE_OWNER_LENGTH} characters without control characters`;

/** A run lease's owner (`acquireLease`'s `owner`, `observeRun`'s `leaseOwner`): a stable identity, stored with the lease. */
export const leaseOwner = () =>
  z
    .string({ error: `must be ${ownerRule}` })
    .refine((owner) => owner.trim().length > 0 && owner.length <= MAX_LEASE_OWNER_LENGTH && !/[\u0000-\u001f\u007f]/.test(owner), `must be ${ownerRule}`);

/** Whether `value` is what {@link leaseOwner} accepts. */
export function isLeaseOwner(value: unknown): value is string {
  return leaseOwner().safeParse(value).success;
}

const leaseRule = `a number of milliseconds from 3 to ${MAX_DELAY_MS} (about 24.8 days)`;

/** A run lease's time to live in ms: at least 3 (it is renewed every third of it) and at most {@link MAX_DELAY_MS}; finite. */
export const leaseTtlMs = () => z.number({ error: `must be ${leaseRule}` }).refine(isLeaseTtlMs, `must be ${leaseRule}`);

/** Whether `value` is what {@link leaseTtlMs} accepts. */
export function isLeaseTtlMs(value: unknown): value is number {
  return typeof value === 'number' && value >= 3 && value <= MAX_DELAY_MS;
}

/**
 * The durable-run options a runnable's `events$` passes on to `observeRun`: `store`, `runId`,
 * `leaseTtlMs` and `leaseOwner` (spread its `shape` into the runnable's events options schema once it
 * passes them on).
 */
export const durableRunOptions = () =>
  z.strictObject({ store: runStore().optional(), runId: id().optional(), leaseTtlMs: leaseTtlMs().optional(), leaseOwner: leaseOwner().optional() });
