import type { RedisClient } from '../types/RedisClient';

/**
 * Passes the failures a worker, bus or channel survives on to its reporter, once per Redis outage: while
 * the client is not connected (`status` other than `ready`), only the first failure is reported, not each
 * retry's. With `back`, the end of an outage (the client's next `ready`) is told too.
 *
 * @remarks
 * A failure reported while the client is connected is passed on as it is, and ends an outage that no
 * `ready` ended (one without `back`), so the next outage is reported again.
 */
export class OutageReports {
  private down = false;
  private readonly ready = (): void => {
    this.down = false;
    this.back?.();
  };

  constructor(
    private readonly redis: RedisClient,
    private readonly reporter: (error: unknown) => void,
    private readonly back?: () => void,
  ) {}

  /** Reports `error`, unless it is another failure of an outage already reported. */
  readonly report = (error: unknown): void => {
    if (this.redis.status === 'ready') {
      if (this.down && this.back === undefined) this.down = false;
      return this.reporter(error);
    }
    if (this.down) return;
    this.down = true;
    if (this.back !== undefined) this.redis.once('ready', this.ready);
    this.reporter(error);
  };

  /** Stops waiting for the end of an outage. */
  close(): void {
    this.redis.off('ready', this.ready);
  }
}
