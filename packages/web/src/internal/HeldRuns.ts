import { Subject, type Observable, type SchedulerLike } from 'rxjs';
import { scheduleDelay, takeRunUntil, type RunEvent, type RunEventOf, type RunSummary } from '@rxagents/core';
import { RunForgottenError, type RunForgottenReason } from '../errors/RunForgottenError';
import { RunRegistryFullError } from '../errors/RunRegistryFullError';
import { encodeFrame, type Frame } from './eventStreamBody';
import { HeldRunSummary } from './HeldRunSummary';
import { RunLog } from './RunLog';
import type { HeldRun } from './StoredRunViewer';
import type { TrackedRunStore } from './TrackedRunStore';

/** How a held run can be stopped: cancelled (its ends said), and, for a durable one, its store. */
interface Control {
  readonly cancelled: Subject<void>;
  readonly tracked: TrackedRunStore | undefined;
  /** While a cancellation says the ends of the run's open nodes: they are gathered here. */
  ends: RunEvent[] | undefined;
  held: HeldRun | undefined;
  /** The run's interrupts its events show open (an `interrupt` without its `interrupt-end`), by id. */
  readonly interrupts: Map<string, RunEventOf<'interrupt'>>;
  /** What the run's events said so far: its name, status, number of events. */
  readonly summary: HeldRunSummary;
}

/** What {@link HeldRuns} is made with (the registry's options). */
export interface HeldRunsSettings {
  readonly replayLimit: number;
  readonly ttlMs: number;
  readonly maxRuns: number;
  readonly scheduler: SchedulerLike;
  readonly frame: (event: unknown, id: number) => Frame;
}

/** How a run joins the registry: at once, or (a resumed run) once it gave its first event, which it gives once it holds its lease. */
export interface Launch {
  readonly runId: string;
  readonly events$: Observable<RunEvent>;
  /** The clock of the `at` of a cancellation's ends (none for events given as they are). */
  readonly scheduler?: SchedulerLike;
  readonly tracked?: TrackedRunStore;
  /**
   * Called once: `true` when the run joined, `false` when it errored (with that error) or could not join
   * before its first event. Given: the run joins at its first event.
   */
  readonly joined?: (joined: boolean, error?: unknown) => void;
  /** The log of the run held here that this one resumes (it stopped short of its end): replaced once this one joins, without taking room. */
  readonly replaces?: RunLog;
  /**
   * Asked when the run's events complete: `true` when they stopped short of the run's end and the
   * registry resumes it. Its log is then not ended (its viewers see only what the store holds) and
   * stays until the resumed run replaces it or the registry lets go of it.
   */
  readonly stoppedShort?: () => boolean;
}

/** The runs a registry holds in memory: their logs, expiry, capacity, cancellation. */
export class HeldRuns {
  readonly runs = new Map<string, RunLog>();
  private readonly controls = new WeakMap<RunLog, Control>();

  constructor(private readonly settings: HeldRunsSettings) {}

  /** The summaries of the runs held here, in the order they started. */
  summaries(): RunSummary[] {
    return [...this.runs.values()].flatMap((log) => {
      const summary = this.controls.get(log)?.summary;
      return summary === undefined ? [] : [summary.current];
    });
  }

  /** The run as a store-backed viewer reads it, when it is held here and durable. */
  held(runId: string): HeldRun | undefined {
    const log = this.runs.get(runId);
    return log === undefined ? undefined : this.controls.get(log)?.held;
  }

  /**
   * The interrupt `interruptId` that the events of the run held here as `runId` show open, while the run
   * runs: its `interrupt` event (whose `runId` is the one to answer it under).
   */
  openInterrupt(runId: string, interruptId: string): RunEventOf<'interrupt'> | undefined {
    const log = this.runs.get(runId);
    if (log === undefined || log.ending !== undefined) return undefined;
    return this.controls.get(log)?.interrupts.get(interruptId);
  }

  /** The interrupts the events of the run held here as `runId` show open, oldest first (none once it ended). */
  openInterrupts(runId: string): readonly RunEventOf<'interrupt'>[] {
    const log = this.runs.get(runId);
    if (log === undefined || log.ending !== undefined) return [];
    return [...(this.controls.get(log)?.interrupts.values() ?? [])];
  }

  /** Whether the run is held here and journaled. */
  isDurable(log: RunLog): boolean {
    return this.controls.get(log)?.tracked !== undefined;
  }

  makeRoom(): void {
    if (this.runs.size < this.settings.maxRuns) return;
    for (const [runId, log] of this.runs) {
      if (log.ending !== undefined) {
        this.forget(runId, log, 'evicted');
        return;
      }
    }
    throw new RunRegistryFullError(this.settings.maxRuns);
  }

  forget(runId: string, log: RunLog, reason: RunForgottenReason): void {
    log.expiry?.unsubscribe();
    if (this.runs.get(runId) === log) this.runs.delete(runId);
    // Its viewers still reading end now, so that nothing holds the run's events any more.
    log.forget(new RunForgottenError(reason));
  }

  private finish(runId: string, log: RunLog, ending: Parameters<RunLog['end']>[0]): void {
    if (log.ending !== undefined) return;
    this.controls.get(log)?.interrupts.clear();
    log.end(ending);
    this.controls.get(log)?.summary.ended(ending.kind === 'error', this.settings.scheduler.now());
    log.expiry = scheduleDelay(this.settings.scheduler, this.settings.ttlMs, () => this.forget(runId, log, 'expired'));
  }

  /** Starts holding a run (see {@link Launch}); throws {@link RunRegistryFullError} when full. */
  launch({ runId, events$, scheduler, tracked, joined, replaces, stoppedShort }: Launch): void {
    const replacing = (): boolean => replaces !== undefined && this.runs.get(runId) === replaces;
    if (!replacing()) this.makeRoom();
    const { frame, replayLimit } = this.settings;
    const log = new RunLog(replayLimit);
    const control: Control = { cancelled: new Subject<void>(), tracked, ends: undefined, held: undefined, interrupts: new Map(), summary: new HeldRunSummary(runId, this.settings.scheduler.now()) };
    if (tracked !== undefined) control.held = { log, journaled: () => tracked.journaled };
    this.controls.set(log, control);
    let waiting = joined;
    const settle = (ok: boolean, error?: unknown): void => {
      const then = waiting;
      waiting = undefined;
      then?.(ok, error);
    };
    if (joined === undefined) this.runs.set(runId, log);
    log.subscription = events$.pipe(takeRunUntil(control.cancelled, scheduler === undefined ? {} : { scheduler })).subscribe({
      next: (event) => {
        // After a value that could not be written, nothing more is kept (a run given synchronously is still being subscribed).
        if (log.ending !== undefined) return;
        if (waiting !== undefined) {
          try {
            if (!replacing()) this.makeRoom();
          } catch {
            log.ending = { kind: 'complete' };
            log.subscription?.unsubscribe();
            settle(false);
            return;
          }
          this.runs.set(runId, log);
          // The viewers of the stopped run it replaces read on from this one.
          replaces?.wake();
          settle(true);
        }
        control.ends?.push(event);
        if (event.type === 'interrupt') control.interrupts.set(event.interruptId, event);
        else if (event.type === 'interrupt-end') control.interrupts.delete(event.interruptId);
        control.summary.saw(event, this.settings.scheduler.now());
        try {
          log.append(encodeFrame(frame(event, log.next)));
        } catch (error) {
          log.subscription?.unsubscribe();
          this.finish(runId, log, { kind: 'error', error });
        }
      },
      error: (error: unknown) => {
        if (waiting !== undefined) {
          log.ending = { kind: 'error', error };
          settle(false, error);
        } else this.finish(runId, log, { kind: 'error', error });
      },
      complete: () => {
        if (waiting !== undefined) {
          log.ending = { kind: 'complete' };
          settle(false);
        } else if (stoppedShort?.() === true) control.interrupts.clear();
        else this.finish(runId, log, { kind: 'complete' });
      },
    });
    // It ended while being subscribed, before its subscription could be unsubscribed: stop it now.
    if (log.ending !== undefined) log.subscription.unsubscribe();
    if (tracked !== undefined) tracked.grew = () => log.wake();
  }

  cancel(runId: string): boolean {
    const log = this.runs.get(runId);
    if (log === undefined || log.ending !== undefined) return false;
    const control = this.controls.get(log);
    const ends: RunEvent[] = [];
    if (control !== undefined) control.ends = ends;
    // The run is unsubscribed and its open nodes end in its events: viewers see it end as cancelled.
    control?.cancelled.next();
    if (control !== undefined) control.ends = undefined;
    // A durable run's ends go into its journal too, so that it is not resumed as unfinished.
    control?.tracked?.cancelWith(ends);
    if (log.ending !== undefined) return true;
    log.subscription?.unsubscribe();
    const error = new Error('The run was cancelled');
    error.name = 'AbortError';
    this.finish(runId, log, { kind: 'error', error });
    return true;
  }

  /**
   * Lets go of every run: a durable one stops here as a crash would (its journal keeps it, unfinished,
   * for another registry to resume), any other is cancelled.
   */
  close(): void {
    for (const [runId, log] of [...this.runs]) {
      if (this.isDurable(log)) log.subscription?.unsubscribe();
      else this.cancel(runId);
      this.forget(runId, log, 'closed');
    }
  }
}
