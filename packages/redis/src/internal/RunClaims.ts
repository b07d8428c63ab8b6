import type { RedisClient } from '../types/RedisClient';
import { interval, Observable, type SchedulerLike, type Subscriber, type Subscription } from 'rxjs';

/** The value a claim takes once its step is recorded: no engine can claim it again. */
const DONE = 'done';

interface Claimant {
  readonly key: string;
  readonly subscriber: Subscriber<boolean>;
  /** This engine holds the claim. */
  held: boolean;
  /** A `SET NX` for it is on its way. */
  asking: boolean;
  /** Another engine held it when last asked: not asked again before the next renewal tick. */
  takenElsewhere: boolean;
  /** Its step is on its way to the stream: the claim is never given up, only renewed until it is `done`. */
  recording: boolean;
  /** Its step is stored: the claim is left to expire as `done`. */
  done: boolean;
  closed: boolean;
}

export interface RunClaimsSettings {
  readonly redis: RedisClient;
  readonly owner: string;
  readonly concurrency: number;
  readonly leaseMs: number;
  readonly ttlMs: number;
  readonly scheduler: SchedulerLike;
  readonly report: (error: unknown) => void;
}

/**
 * The claims of one engine on a shared run: each a Redis key set with `SET key owner NX PX lease`,
 * renewed every third of the lease while held, at most `concurrency` held (or being asked for) at once.
 *
 * @remarks
 * A claim another engine holds is asked for again on each renewal tick, so when its holder dies (its
 * lease expires unrenewed) an engine waiting for it takes it over. A renewal that finds another owner
 * reports the claim lost. Giving a claim up deletes it (if still ours) so another engine may take it at
 * once; a claim whose step is recorded becomes `done` for the run's time to live and is never taken again.
 *
 * @internal
 */
export class RunClaims {
  readonly #settings: RunClaimsSettings;
  /** Every claim asked for and not given up, in the order asked: older interactions first. */
  readonly #claimants = new Map<string, Claimant>();
  #busy = 0;
  /** The renewal ticks, from the first claim on. */
  #ticks: Subscription | undefined = undefined;
  #closed = false;

  constructor(settings: RunClaimsSettings) {
    this.#settings = settings;
  }

  claim(key: string): Observable<boolean> {
    return new Observable<boolean>((subscriber) => {
      if (this.#closed) return subscriber.complete();
      this.#ticks ??= interval(Math.max(1, Math.floor(this.#settings.leaseMs / 3)), this.#settings.scheduler).subscribe(() => this.#tick());
      const claimant: Claimant = { key, subscriber, held: false, asking: false, takenElsewhere: false, recording: false, done: false, closed: false };
      this.#claimants.get(key)?.subscriber.complete();
      this.#claimants.set(key, claimant);
      this.#pump();
      return () => this.#release(claimant);
    });
  }

  /** The claim's step is being appended: keep the claim (renewed) until it is stored, even once given up. */
  recording(key: string): void {
    const claimant = this.#claimants.get(key);
    if (claimant !== undefined) claimant.recording = true;
  }

  /** The claim's step is stored: mark it `done`, so no engine runs the interaction again. */
  done(key: string): void {
    const claimant = this.#claimants.get(key);
    if (claimant !== undefined) claimant.done = true;
    this.#settings.redis.set(key, DONE, 'PX', this.#settings.ttlMs).catch(this.#settings.report);
  }

  close(): void {
    this.#closed = true;
    this.#ticks?.unsubscribe();
    for (const claimant of [...this.#claimants.values()]) claimant.subscriber.complete();
  }

  /** Asks for waiting claims while fewer than `concurrency` are held or asked for. */
  #pump(): void {
    const { concurrency } = this.#settings;
    for (const claimant of this.#claimants.values()) {
      if (this.#busy >= concurrency) return;
      if (claimant.held || claimant.asking || claimant.takenElsewhere) continue;
      this.#ask(claimant);
    }
  }

  #ask(claimant: Claimant): void {
    const { redis, owner, leaseMs, report } = this.#settings;
    claimant.asking = true;
    this.#busy += 1;
    takeClaim(redis, claimant.key, owner, leaseMs).then(
      (taken) => {
        claimant.asking = false;
        if (claimant.closed) {
          this.#busy -= 1;
          if (taken) this.#giveUp(claimant.key);
        } else if (taken) {
          claimant.held = true;
          claimant.subscriber.next(true);
        } else {
          this.#busy -= 1;
          claimant.takenElsewhere = true;
        }
        this.#pump();
      },
      (error: unknown) => {
        claimant.asking = false;
        claimant.takenElsewhere = true;
        this.#busy -= 1;
        report(error);
      },
    );
  }

  #release(claimant: Claimant): void {
    if (claimant.closed) return;
    claimant.closed = true;
    if (this.#claimants.get(claimant.key) === claimant) this.#claimants.delete(claimant.key);
    if (claimant.held) {
      claimant.held = false;
      this.#busy -= 1;
      if (!claimant.recording && !claimant.done) this.#giveUp(claimant.key);
    }
    this.#pump();
  }

  /** Deletes the claim if this engine still holds it, so another engine may take it over now. */
  #giveUp(key: string): void {
    const { redis, owner, report } = this.#settings;
    redis
      .get(key)
      .then((value) => (value === owner ? redis.del(key) : undefined))
      .catch(report);
  }

  /** Renews the held claims, reports the lost ones, and asks again for those held elsewhere. */
  #tick(): void {
    const { redis, owner, leaseMs, report } = this.#settings;
    for (const claimant of this.#claimants.values()) {
      if (!claimant.held) {
        claimant.takenElsewhere = false;
        continue;
      }
      if (claimant.done) continue;
      redis
        .get(claimant.key)
        // Expired but not taken (this process was slow to renew): take it back if no one else has.
        .then((value) => (value === null ? takeClaim(redis, claimant.key, owner, leaseMs).then((taken) => (taken ? owner : null)) : value))
        .then((value) => {
          if (claimant.closed || !claimant.held || claimant.done) return undefined;
          if (value === owner) return redis.pexpire(claimant.key, leaseMs);
          claimant.held = false;
          claimant.takenElsewhere = true;
          this.#busy -= 1;
          claimant.subscriber.next(false);
          this.#pump();
          return undefined;
        })
        .catch(report);
    }
    this.#pump();
  }
}

/**
 * Sets the claim to `owner` unless it is set (`SET NX GET PX`): true if it was free or already `owner`'s.
 *
 * @remarks
 * Already `owner`'s is what a resent `SET` finds when Redis applied the first one and its reply was lost
 * (a broken connection, a Redis restart): ioredis sends the command again, and a plain `SET NX` would
 * then answer as if another engine held the claim, leaving it to expire unused.
 */
export async function takeClaim(redis: RedisClient, key: string, owner: string, leaseMs: number): Promise<boolean> {
  const previous = await redis.set(key, owner, 'PX', leaseMs, 'NX', 'GET');
  return previous === null || previous === owner;
}
