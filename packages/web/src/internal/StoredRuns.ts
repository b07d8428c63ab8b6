import { finalize, type Observable, type SchedulerLike } from 'rxjs';
import { observeRun, RunLeasedError, type RunContext, type RunEvent, type RunEventOf, type RunStore } from '@rxagents/core';
import { RunForgottenError } from '../errors/RunForgottenError';
import type { ExposeError } from '../redactError';
import { eventStreamHeaders } from '../toEventStreamResponse';
import { eventStreamBody, type Frame } from './eventStreamBody';
import type { HeldRuns } from './HeldRuns';
import type { RunLog } from './RunLog';
import { closedByInterruption, RunQuestions } from './RunQuestions';
import { JournalFollower } from './JournalFollower';
import { StoredRunViewer } from './StoredRunViewer';
import { TrackedRunStore } from './TrackedRunStore';

/** A run's work, given its context. */
type RunBody = (run: RunContext) => Observable<unknown>;

/** What a durable run runs: its name, input and body. */
interface RunCode {
  readonly name: string;
  readonly input: string;
  readonly body: RunBody;
}

/** A durable run held here: its code (run again after a stop short of its end) and what it asked. */
interface Durable {
  readonly code: RunCode;
  readonly questions: RunQuestions;
}

/** What {@link StoredRuns} is made with (the registry's options). */
export interface StoredRunsSettings {
  readonly store: RunStore;
  readonly runs: ReadonlyMap<string, (input: string) => RunBody>;
  readonly leaseTtlMs?: number | undefined;
  readonly leaseOwner?: string | undefined;
  readonly pollMs: number;
  readonly heartbeatMs: number;
  readonly stallTimeoutMs: number;
  readonly scheduler: SchedulerLike;
  readonly exposeError: ExposeError;
  readonly frame: (event: unknown, id: number) => Frame;
}

/** How a resume went: the run runs here now, another process holds its lease, or it was not resumed (finished, unknown, not one of `runs`, held here already). */
/** How a resume went: joined, not resumed, or refused because another holder's lease lasts (for `lapsesInMs`, when the store said). */
export type ResumeOutcome = 'joined' | 'not-resumed' | { readonly leased: { readonly lapsesInMs: number | undefined } };

/** A plain-text answer with a fixed body. */
const text = (status: number, body: string): Response => new Response(body, { status, headers: { 'content-type': 'text/plain; charset=utf-8' } });

/**
 * The durable side of a registry: runs started with the store, resumed from it, and viewers served from
 * their journals.
 */
export class StoredRuns {
  private readonly resuming = new Map<string, Promise<ResumeOutcome>>();
  private readonly viewers = new Set<StoredRunViewer>();
  /** The durable runs held here, by id. */
  private readonly durable = new Map<string, Durable>();
  /** The journal follower of each run that viewers read from the store, shared by them. */
  private readonly followers = new Map<string, JournalFollower>();
  /** Counts `close()`s: a resume that began before one does not join after it. */
  private generation = 0;

  constructor(
    private readonly held: HeldRuns,
    private readonly settings: StoredRunsSettings,
  ) {}

  /** Starts a new durable run under `runId`. */
  start(runId: string, name: string, input: string, body: RunBody): void {
    const tracked = new TrackedRunStore(this.settings.store, runId);
    const durable = this.durableOf(runId, { name, input, body });
    this.held.launch({ runId, events$: this.observe(runId, durable, tracked), scheduler: this.settings.scheduler, tracked, stoppedShort: () => this.stoppedShort(runId, durable) });
  }

  /** The questions of a durable run held here (none for another run). */
  questionsHeld(runId: string): RunQuestions | undefined {
    return this.durable.get(runId)?.questions;
  }

  /** The resume under way of a run (one that stopped here short of its end, or resumed for a viewer or an answer). */
  resumingNow(runId: string): Promise<ResumeOutcome> | undefined {
    return this.resuming.get(runId);
  }

  /**
   * Resumes `runId` from the store when it is unfinished, not held here, its name is one of `runs`, and
   * its lease is free: `true` once it runs here.
   */
  resume(runId: string): Promise<boolean> {
    return this.resumeWithOutcome(runId).then((outcome) => outcome === 'joined');
  }

  /** {@link resume}, saying why a run was not resumed when another process holds its lease. */
  resumeWithOutcome(runId: string, replaces?: RunLog): Promise<ResumeOutcome> {
    const pending = this.resuming.get(runId);
    if (pending !== undefined) return pending;
    if (this.held.runs.has(runId) && (replaces === undefined || this.held.runs.get(runId) !== replaces)) return Promise.resolve('not-resumed');
    const attempt = this.attempt(runId, replaces).then(
      (outcome) => outcome,
      (): ResumeOutcome => 'not-resumed',
    );
    this.resuming.set(runId, attempt);
    void attempt.then(() => this.resuming.delete(runId));
    return attempt;
  }

  /** Resumes every unfinished run of the store that {@link resume} would, one after another; the ones it resumed. */
  async resumeAll(): Promise<readonly string[]> {
    const resumed: string[] = [];
    for (const summary of await this.settings.store.list({ status: 'running' })) {
      if (!this.settings.runs.has(summary.name) || this.held.runs.has(summary.runId)) continue;
      if (await this.resume(summary.runId)) resumed.push(summary.runId);
    }
    return resumed;
  }

  /**
   * The event stream of a durable run, or of one the store holds and this registry does not: after
   * `lastEventId` (`undefined`: from the start), `404` when the store holds no such run, `400` for an id
   * the run never had (`bad`: one that is no event id).
   */
  async response(runId: string, lastEventId: number | undefined | 'bad', signal: AbortSignal): Promise<Response> {
    const { store, heartbeatMs, stallTimeoutMs, scheduler } = this.settings;
    let known = this.held.runs.get(runId)?.next;
    if (known === undefined) {
      let summary;
      try {
        summary = await store.summary(runId);
      } catch {
        return text(503, 'The run store is unavailable');
      }
      if (summary === undefined) return text(404, 'Unknown run');
      if (summary.status === 'running' && lastEventId !== 'bad') await this.resume(runId);
      known = Math.max(summary.records, this.held.runs.get(runId)?.next ?? 0);
    }
    if (lastEventId === 'bad' || (lastEventId !== undefined && lastEventId >= known)) return text(400, 'Last-Event-ID is not an event of this run');
    const viewer = new StoredRunViewer(
      {
        ...this.settings,
        held: (id) => this.held.held(id),
        follow: (id, from) => this.follow(id, from),
        unfollow: (follower) => this.unfollow(follower),
        left: (gone) => this.viewers.delete(gone),
      },
      runId,
      lastEventId === undefined ? 0 : lastEventId + 1,
    );
    this.viewers.add(viewer);
    return new Response(eventStreamBody(viewer, { heartbeatMs, stallTimeoutMs, scheduler }, signal), { status: 200, headers: eventStreamHeaders });
  }

  /** Ends every viewer with `RUN_FORGOTTEN` (`closed`); resumes under way do not join. */
  close(): void {
    this.generation++;
    this.durable.clear();
    for (const viewer of [...this.viewers]) viewer.interrupt(new RunForgottenError('closed'));
    this.viewers.clear();
    for (const follower of this.followers.values()) follower.close();
    this.followers.clear();
  }

  private follow(runId: string, from: number): JournalFollower {
    let follower = this.followers.get(runId);
    if (follower === undefined) {
      follower = new JournalFollower({ ...this.settings, takeOver: (id) => this.resume(id) }, runId, from);
      this.followers.set(runId, follower);
    }
    follower.users++;
    return follower;
  }

  private unfollow(follower: JournalFollower): void {
    if (--follower.users > 0) return;
    follower.close();
    if (this.followers.get(follower.runId) === follower) this.followers.delete(follower.runId);
  }

  /**
   * The interrupts the journal of an unfinished run shows open (each `interrupt` without a later
   * `interrupt-end`, or closed only because its call was interrupted: the call asks it again when it runs
   * again), oldest first.
   */
  async openInJournal(runId: string): Promise<readonly RunEventOf<'interrupt'>[]> {
    if ((await this.settings.store.summary(runId))?.status !== 'running') return [];
    const open = new Map<string, RunEventOf<'interrupt'>>();
    for await (const { event } of this.settings.store.read(runId, 0)) {
      if (event.type === 'interrupt') {
        // Asked again (a call that runs again): it keeps its place, with its latest event.
        open.delete(event.interruptId);
        open.set(event.interruptId, event);
      } else if (event.type === 'interrupt-end' && !closedByInterruption(event)) open.delete(event.interruptId);
    }
    return [...open.values()];
  }

  /**
   * Whether the journal of an unfinished run shows the interrupt open: its `interrupt` without a later
   * `interrupt-end`. Reads the whole journal; rejects when the store cannot be read.
   */
  async isOpenInJournal(runId: string, interruptId: string): Promise<boolean> {
    return (await this.openInJournal(runId)).some((event) => event.interruptId === interruptId);
  }

  /**
   * A durable run held here stopped short of its end (see {@link RunQuestions.watch}): it is resumed at
   * once, unless its lease is another process's now. `false` (it ends as it stopped) when not.
   */
  private stoppedShort(runId: string, durable: Durable): boolean {
    const log = this.held.runs.get(runId);
    if (!durable.questions.stopped || log === undefined || this.durable.get(runId) !== durable) return false;
    void this.resumeWithOutcome(runId, log).then((outcome) => {
      if (outcome === 'joined') return;
      // Not resumed here (another process holds it, or the store cannot be read now): its viewers read
      // its journal, and a later request or `resumeAll` resumes it.
      if (this.durable.get(runId) === durable) this.durable.delete(runId);
      if (this.held.runs.get(runId) === log) this.held.forget(runId, log, 'closed');
    });
    return true;
  }

  /**
   * Runs `runId` here from its journal, replacing `replaces` (its stopped attempt) when given, with the
   * code that attempt ran (its journal may not even hold its start yet), else with the code `runs` holds
   * under its recorded name.
   */
  private async attempt(runId: string, replaces: RunLog | undefined): Promise<ResumeOutcome> {
    const generation = this.generation;
    const summary = await this.settings.store.summary(runId);
    // A finished run is not run again: its viewers read its journal.
    if (summary !== undefined && summary.status !== 'running') return 'not-resumed';
    let code = replaces === undefined ? undefined : this.durable.get(runId)?.code;
    if (code === undefined) {
      const root = summary === undefined ? undefined : await this.rootStart(runId);
      if (root === undefined || root.inputOmitted === true) return 'not-resumed';
      const make = this.settings.runs.get(root.name);
      if (make === undefined) return 'not-resumed';
      code = { name: root.name, input: root.input, body: make(root.input) };
    }
    const held = this.held.runs.get(runId);
    if ((held !== undefined && held !== replaces) || generation !== this.generation) return 'not-resumed';
    const tracked = new TrackedRunStore(this.settings.store, runId);
    const durable = this.durableOf(runId, code);
    return new Promise<ResumeOutcome>((resolve) => {
      this.held.launch({
        runId,
        events$: this.observe(runId, durable, tracked),
        scheduler: this.settings.scheduler,
        tracked,
        ...(replaces === undefined ? {} : { replaces }),
        stoppedShort: () => this.stoppedShort(runId, durable),
        joined: (joined, error) => {
          const log = this.held.runs.get(runId);
          // Closed meanwhile: it stops here again, as the others did.
          if (joined && generation !== this.generation && log !== undefined) {
            log.subscription?.unsubscribe();
            this.held.forget(runId, log, 'closed');
            resolve('not-resumed');
            return;
          }
          // Cancelled between its stop and this resume: the cancellation is journaled now.
          if (joined && replaces?.ending !== undefined) this.held.cancel(runId);
          resolve(joined ? 'joined' : isLeased(error) ? { leased: { lapsesInMs: (error as { lapsesInMs?: number }).lapsesInMs } } : 'not-resumed');
        },
      });
    });
  }

  private durableOf(runId: string, code: RunCode): Durable {
    let durable = this.durable.get(runId);
    if (durable === undefined) this.durable.set(runId, (durable = { code, questions: new RunQuestions(runId) }));
    return durable;
  }

  /** The run's first record, its root's `run-start`, when the store holds one. */
  private async rootStart(runId: string): Promise<{ name: string; input: string; inputOmitted?: true } | undefined> {
    for await (const { event } of this.settings.store.read(runId, 0)) {
      return event.type === 'run-start' && event.parentCallId === null ? event : undefined;
    }
    return undefined;
  }

  /** The run's events under `store`, watched by its questions; the run is let go of once it ends, or stops here for good. */
  private observe(runId: string, durable: Durable, store: TrackedRunStore): Observable<RunEvent> {
    const { scheduler, leaseTtlMs, leaseOwner } = this.settings;
    const { code, questions } = durable;
    return observeRun(code.name, code.input, code.body, { runId, scheduler, store, ...(leaseTtlMs === undefined ? {} : { leaseTtlMs }), ...(leaseOwner === undefined ? {} : { leaseOwner }) }).pipe(
      questions.watch(store),
      finalize(() => {
        if (!questions.stopped && this.durable.get(runId) === durable) this.durable.delete(runId);
      }),
    );
  }
}

/** Whether `error` says another holder has the run's lease (also from another copy of the toolkit). */
function isLeased(error: unknown): boolean {
  return error instanceof RunLeasedError || (error as { code?: unknown } | null)?.code === 'RUN_LEASED';
}
