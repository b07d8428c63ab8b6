import { type Observable, type Observer, type SchedulerLike, type Subscriber, Subscription } from 'rxjs';
import { scheduleDelay } from '../../delay';
import { CoordinationError } from '../../errors/CoordinationError';
import { RunDivergenceError } from '../../errors/RunDivergenceError';
import { RunStoreError } from '../../errors/RunStoreError';
import type { RunContext } from '../../events/RunContext';
import type { RunEvent } from '../../events/RunEvent';
import type { RunOutcome } from '../../events/RunOutcome';
import { serializeError } from '../../events/SerializedError';
import { traceRun } from '../../events/traceRun';
import { preview } from '../../preview';
import type { RunLease, RunStore } from '../../store/RunStore';
import { jobClock } from '../jobClock';
import { DurableRun } from './DurableRun';
import { JournalIndex } from './JournalIndex';
import { JournalWriter } from './JournalWriter';

/** What a durable run is started with (observeRun's arguments, checked). */
export interface DurableRunSettings<T> {
  readonly name: string;
  readonly input: string;
  readonly body: (run: RunContext) => Observable<T>;
  readonly describe: ((value: T) => RunOutcome) | undefined;
  readonly scheduler: SchedulerLike;
  readonly runId: string;
  readonly pace: RunContext['pace'];
  readonly store: RunStore;
  readonly leaseTtlMs: number;
  /** The stable identity the lease is taken under (see `ObserveRunOptions.leaseOwner`). */
  readonly leaseOwner: string | undefined;
  /** Counts one event the body reported (for the run-context-unused check). */
  readonly reported: () => void;
}

/**
 * A durable run for one subscriber of `observeRun`: takes the lease, reads the journal, closes what was
 * interrupted, emits the journal, then runs the body with everything recorded answered from it, journals
 * what is new, renews the lease, and ends once the journal holds the run's end.
 */
export class DurableSession<T> {
  #lease: RunLease | undefined;
  #writer: JournalWriter | undefined;
  #run: DurableRun | undefined;
  #body: BodyEnd | undefined;
  #renewal: Subscription | undefined;
  #left = false;
  #stopped = false;
  #bodyDone = false;
  #finished = false;
  /** The journal held the root's `run-end` when the run was opened. */
  #journalEnded = false;
  #failure: CoordinationError | undefined;

  constructor(
    private readonly subscriber: Subscriber<RunEvent>,
    private readonly settings: DurableRunSettings<T>,
  ) {}

  start(): void {
    this.#open().then(
      (index) => {
        if (this.#left) this.#release();
        else this.#run$(index);
      },
      (error: unknown) => {
        this.#release();
        if (!this.#left) this.subscriber.error(error);
      },
    );
  }

  /** The reader left: the run stops here, as if its process had; what was queued is still journaled. */
  leave(): void {
    if (this.#left) return;
    this.#left = true;
    if (this.#run === undefined) return;
    this.#stopped = true;
    this.#run.stopped = true;
    this.#renewal?.unsubscribe();
    this.#writer?.close();
    this.#body?.unsubscribe();
    this.#writer?.whenIdle(() => this.#release());
  }

  async #open(): Promise<JournalIndex> {
    const { store, runId, leaseTtlMs, leaseOwner, name, input, scheduler } = this.settings;
    const summary = await storeCall('summary', runId, () => store.summary(runId));
    const ended = summary !== undefined && summary.status !== 'running';
    if (!ended) this.#lease = await storeCall('acquireLease', runId, () => store.acquireLease(runId, leaseTtlMs, leaseOwner === undefined ? undefined : { owner: leaseOwner }));
    const events: RunEvent[] = [];
    await storeCall('read', runId, async () => {
      for await (const record of store.read(runId)) events.push(record.event);
    });
    const index = new JournalIndex(runId, events, scheduler.now());
    const root = index.rootStart;
    if (root !== undefined && (root.name !== name || (root.inputOmitted !== true && root.input !== input))) {
      throw new RunDivergenceError(runId, 'run', `a run "${preview(root.name)}" of ${root.inputOmitted === true ? '(an input too long to record)' : preview(root.input)}`, `a run "${preview(name)}" of ${preview(input)}`);
    }
    if (index.closing.length > 0) {
      const lease = this.#lease;
      await storeCall('append', runId, () => store.append(runId, index.closing, lease));
    }
    return index;
  }

  #run$(index: JournalIndex): void {
    const { subscriber } = this;
    const { store, runId, leaseTtlMs, name, input, body, describe, scheduler, pace, reported } = this.settings;
    for (const event of index.events) {
      if (subscriber.closed) break;
      subscriber.next(event);
    }
    // The reader left while reading the journal: the run does not start here.
    if (subscriber.closed) {
      this.#release();
      return;
    }
    this.#journalEnded = index.rootEnded;
    const writer = new JournalWriter(store, runId, () => this.#lease, (error) => this.#stop(error), !index.rootEnded);
    this.#writer = writer;
    const run = new DurableRun(runId, index, writer, (event) => subscriber.next(event), (error) => this.#stop(error), scheduler, leaseTtlMs);
    this.#run = run;
    const root: RunContext = {
      runId,
      callId: null,
      parentCallId: null,
      scheduler: jobClock(scheduler),
      emit: (event) => {
        reported();
        run.emit(event);
      },
      pace: () => writer.gate() ?? pace?.(),
      journal: run.root,
    };
    if (this.#lease !== undefined) this.#renewal = scheduleDelay(scheduler, leaseTtlMs / 3, this.#renew);
    const end = new BodyEnd(() => {
      this.#bodyDone = true;
      this.#finish();
    });
    this.#body = end;
    traceRun(root, name, input, body as (run: RunContext | undefined) => Observable<T>, describe).subscribe(end);
  }

  readonly #renew = (): void => {
    const lease = this.#lease;
    if (lease === undefined || this.#stopped) return;
    const { store, runId, leaseTtlMs, scheduler } = this.settings;
    storeCall('renewLease', runId, () => store.renewLease(lease, leaseTtlMs)).then(
      (renewed) => {
        if (this.#stopped || this.#finished) return;
        this.#lease = renewed;
        this.#renewal = scheduleDelay(scheduler, leaseTtlMs / 3, this.#renew);
      },
      (error: CoordinationError) => this.#stop(error),
    );
  };

  /** The run cannot go on (a divergence, a store failure, a lost lease): its body stops, nothing more is journaled. */
  #stop(error: CoordinationError): void {
    if (this.#stopped || this.#finished) return;
    this.#stopped = true;
    this.#failure = error;
    const run = this.#run as DurableRun;
    run.stopped = true;
    run.close();
    this.#renewal?.unsubscribe();
    this.#writer?.discard();
    this.#body?.unsubscribe();
    this.#bodyDone = true;
    this.#finish();
  }

  #finish(): void {
    if (!this.#bodyDone || this.#finished) return;
    (this.#writer as JournalWriter).whenIdle(() => {
      if (this.#finished) return;
      this.#finished = true;
      this.#renewal?.unsubscribe();
      (this.#run as DurableRun).close();
      const { subscriber } = this;
      const run = this.#run as DurableRun;
      const failure = this.#failure;
      // A finished run keeps the end its journal gave the reader: code that no longer agrees with it
      // errors the events after the journal, with no second `run-end`.
      if (failure !== undefined && this.#journalEnded) {
        this.#release();
        subscriber.error(failure);
        return;
      }
      if (failure !== undefined) {
        const at = this.settings.scheduler.now();
        const startedAt = run.rootStartedAt ?? at;
        subscriber.next({ type: 'run-end', runId: this.settings.runId, callId: 'run', parentCallId: null, at, success: false, error: serializeError(failure), durationMs: Math.max(0, at - startedAt) });
      } else if (run.rootEnd !== undefined) subscriber.next(run.rootEnd);
      this.#release();
      subscriber.complete();
    });
  }

  #release(): void {
    const lease = this.#lease;
    if (lease === undefined) return;
    this.#lease = undefined;
    // A lease that cannot be given back expires on its own.
    this.settings.store.releaseLease(lease).then(undefined, () => undefined);
  }
}

/** A store call whose failure is a `CoordinationError` (the store's own, or a `RunStoreError` around it). */
async function storeCall<R>(operation: string, runId: string, call: () => Promise<R>): Promise<R> {
  try {
    return await call();
  } catch (error) {
    throw error instanceof CoordinationError ? error : new RunStoreError(operation, runId, error);
  }
}

/** Takes the root node's end (its values are ignored: they are in `run-end`). */
class BodyEnd extends Subscription implements Observer<unknown> {
  constructor(private readonly ended: () => void) {
    super();
  }

  next(): void {}

  error(): void {
    this.unsubscribe();
    this.ended();
  }

  complete(): void {
    this.unsubscribe();
    this.ended();
  }
}
