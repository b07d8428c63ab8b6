import type { RunLeaseHolder } from '../store/RunStore';
import { CoordinationError } from './CoordinationError';

/**
 * What a store knows of the lease that refused an acquisition: who holds it, and the store's clock.
 *
 * @example
 * ```ts
 * import type { RunLeasedDetails } from '@rxagents/core';
 *
 * const details: RunLeasedDetails = { now: 3_000, holder: { host: 'worker-7', pid: 4242 } };
 * console.log(details.holder?.pid); // 4242
 * ```
 */
export interface RunLeasedDetails {
  /** Who holds the lease, as the store recorded it. */
  readonly holder?: RunLeaseHolder;
  /** The store's clock when it refused, in ms: what "lapses in" counts from. */
  readonly now?: number;
}

/**
 * Another process holds the run's lease: it is running the run now.
 *
 * @remarks
 * A run store gives a run's lease to one holder at a time, so two processes that resume the same run
 * at once cannot both run it: the second is refused with this error. It says who holds the lease
 * (`holder`: host, pid and owner, as far as the store recorded them) and when it lapses (`expiresAt`
 * on the store's clock, and `lapsesInMs` from the store's `now`). Retryable: once the holder releases the
 * lease, or stops renewing it and it lapses, the run can be taken.
 *
 * @example
 * ```ts
 * import { RunLeasedError } from '@rxagents/core';
 *
 * const error = new RunLeasedError('r1', Date.UTC(2026, 11, 8, 1, 30), { now: Date.UTC(2026, 11, 8, 1, 29, 33), holder: { host: 'h', pid: 4242, owner: 'registry-a' } });
 * console.log(error.code, error.retryable); // RUN_LEASED true
 * console.log(error.message); // Run "r1" is leased by process 4242 on host h (owner registry-a) until 2026-12-08T01:30:00.000Z (in 27 s)
 * ```
 */
export class RunLeasedError extends CoordinationError {
  /** The run that is leased. */
  readonly runId: string;
  /** When the current lease lapses unless renewed, in ms on the store's clock. */
  readonly expiresAt: number;
  /** Who holds the lease, as the store recorded it (`undefined` when it recorded nobody). */
  readonly holder: RunLeaseHolder | undefined;
  /** How long from the store's `now` until the lease lapses, in ms (`undefined` when the store gave no `now`). */
  readonly lapsesInMs: number | undefined;

  constructor(runId: string, expiresAt: number, details: RunLeasedDetails = {}) {
    const { holder, now } = details;
    const lapsesInMs = now === undefined ? undefined : Math.max(0, expiresAt - now);
    super('RUN_LEASED', `Run "${runId}" is leased ${holderText(holder)} ${untilText(expiresAt, lapsesInMs)}`, {
      retryable: true,
      context: { runId, expiresAt, ...(holder === undefined ? {} : { holder: { ...holder } }), ...(lapsesInMs === undefined ? {} : { lapsesInMs }) },
    });
    this.runId = runId;
    this.expiresAt = expiresAt;
    this.holder = holder === undefined ? undefined : Object.freeze({ ...holder });
    this.lapsesInMs = lapsesInMs;
  }
}

function holderText(holder: RunLeaseHolder | undefined): string {
  const parts: string[] = [];
  if (holder?.pid !== undefined) parts.push(`process ${holder.pid}`);
  if (holder?.host !== undefined) parts.push(`on host ${holder.host}`);
  const who = parts.length === 0 ? 'another holder' : parts.join(' ');
  return holder?.owner === undefined ? `by ${who}` : `by ${who} (owner ${holder.owner})`;
}

/** The largest time a `Date` holds, in ms from the epoch. */
const MAX_DATE_MS = 8.64e15;

function untilText(expiresAt: number, lapsesInMs: number | undefined): string {
  if (expiresAt === Infinity) return 'with no expiry';
  const at = Math.abs(expiresAt) <= MAX_DATE_MS ? new Date(expiresAt).toISOString() : String(expiresAt);
  if (lapsesInMs === undefined) return `until ${at}`;
  return `until ${at} (in ${lapsesInMs < 1_000 ? `${Math.ceil(lapsesInMs)} ms` : `${Math.ceil(lapsesInMs / 1_000)} s`})`;
}
