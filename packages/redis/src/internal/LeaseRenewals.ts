import { interval, type SchedulerLike, type Subscription } from 'rxjs';
import type { CommandBatch } from './CommandBatch';

/**
 * The lease renewals of one remote agent's calls in flight: one timer for all of them (every third of
 * `leaseMs`), running while any call holds a lease, instead of one timer per call. A call's first renewal
 * comes at most a third of `leaseMs` after its lease was stored, so its lease never runs out while it lives.
 *
 * A renewal only extends a lease that still exists (`SET ... XX`): a lease that ran out (the caller could
 * not renew it for `leaseMs`: its event loop was blocked, or Redis was out of reach) made the worker stop
 * the call, and creating it again would leave the caller waiting for a reply that never comes. Such a
 * lease is reported lost to its call instead.
 *
 * Each call holds its lease through a handle of its own: two calls of one idempotency key in one process
 * share a lease key, and the end of one must not stop the other's renewals.
 */
export class LeaseRenewals {
  /** The leases held, by holder, each with what to do when a renewal finds it gone; `stored` once its first `SET` is known to be in Redis. */
  private readonly leases = new Map<LeaseHold, { readonly lease: string; stored: boolean; lost: () => void }>();
  private timer: Subscription | undefined;

  constructor(
    private readonly commands: CommandBatch,
    private readonly leaseMs: number,
    private readonly scheduler: SchedulerLike,
  ) {}

  /** Renews `lease` until {@link release}, once {@link stored} says it exists; `lost` runs when a renewal finds it gone. */
  hold(lease: string, lost: () => void): LeaseHold {
    const hold: LeaseHold = {};
    this.leases.set(hold, { lease, stored: false, lost });
    this.timer ??= interval(Math.max(1, Math.floor(this.leaseMs / 3)), this.scheduler).subscribe(() => this.renew());
    return hold;
  }

  /** The call's own `SET` of its lease was answered: from now on a renewal that finds no lease means it ran out. */
  stored(hold: LeaseHold): void {
    const held = this.leases.get(hold);
    if (held !== undefined) held.stored = true;
  }

  release(hold: LeaseHold): void {
    this.leases.delete(hold);
  }

  /** Stops the timer when no call holds a lease (it would otherwise stop at its next tick), so a process that is done can exit. */
  stopIfIdle(): void {
    if (this.leases.size > 0) return;
    this.timer?.unsubscribe();
    this.timer = undefined;
  }

  private renew(): void {
    this.stopIfIdle();
    for (const [hold, held] of this.leases) {
      if (!held.stored) continue;
      this.commands.send('SET', held.lease, '1', 'PX', this.leaseMs, 'XX').then(
        (reply) => {
          // Released meanwhile (the call ended): nothing to tell.
          if (reply === null && this.leases.get(hold) === held) {
            this.leases.delete(hold);
            held.lost();
          }
        },
        () => undefined, // Redis out of reach: the next renewal asks again.
      );
    }
  }
}

/** One call's hold on its lease (see {@link LeaseRenewals.hold}). */
export type LeaseHold = Readonly<Record<never, never>>;
