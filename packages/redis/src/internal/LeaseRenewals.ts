import { interval, type SchedulerLike, type Subscription } from 'rxjs';
import type { CommandBatch } from './CommandBatch';

/**
 * The lease renewals of one remote agent's calls in flight: one timer for all of them (every third of
 * `leaseMs`), running while any call holds a lease, instead of one timer per call. A call's first renewal
 * comes at most a third of `leaseMs` after it started, so its lease never runs out while it lives.
 */
export class LeaseRenewals {
  private readonly leases = new Set<string>();
  private timer: Subscription | undefined;

  constructor(
    private readonly commands: CommandBatch,
    private readonly leaseMs: number,
    private readonly scheduler: SchedulerLike,
  ) {}

  /** Renews `lease` until {@link release}. */
  hold(lease: string): void {
    this.leases.add(lease);
    this.timer ??= interval(Math.max(1, Math.floor(this.leaseMs / 3)), this.scheduler).subscribe(() => this.renew());
  }

  release(lease: string): void {
    this.leases.delete(lease);
  }

  /** Stops the timer when no call holds a lease (it would otherwise stop at its next tick), so a process that is done can exit. */
  stopIfIdle(): void {
    if (this.leases.size > 0) return;
    this.timer?.unsubscribe();
    this.timer = undefined;
  }

  private renew(): void {
    this.stopIfIdle();
    for (const lease of this.leases) this.commands.send('SET', lease, '1', 'PX', this.leaseMs).catch(() => undefined);
  }
}
