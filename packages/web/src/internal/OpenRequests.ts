import { BehaviorSubject, Observable } from 'rxjs';

/** What {@link OpenRequests} keeps of a request: its run and its id. */
interface Keyed {
  readonly runId: string | null;
  readonly callId: string;
}

/** One open request and how its call takes the answer. */
export interface Waiting<R extends Keyed> {
  readonly request: R;
  readonly resolve: (text: string) => void;
}

/** The lists of one run's open requests, as its watchers get them. */
interface RunWatch<R> {
  readonly subject: BehaviorSubject<readonly R[]>;
  subscribers: number;
  publishing: boolean;
  changed: boolean;
}

/**
 * The open requests of a human agent, found by call id, listed by run: a run's list holds nothing of any
 * other run, and costs what that run has open, however many runs share the agent.
 */
export class OpenRequests<R extends Keyed> {
  private readonly byCall = new Map<string, Waiting<R>>();
  private readonly byRun = new Map<string | null, Map<string, Waiting<R>>>();
  private readonly watches = new Map<string | null, RunWatch<R>>();

  get(callId: string): Waiting<R> | undefined {
    return this.byCall.get(callId);
  }

  add(entry: Waiting<R>): void {
    const { runId, callId } = entry.request;
    this.byCall.set(callId, entry);
    let open = this.byRun.get(runId);
    if (open === undefined) this.byRun.set(runId, (open = new Map()));
    open.set(callId, entry);
    this.publish(runId);
  }

  /** Closes the request; `false` when it was not open. */
  delete(request: R): boolean {
    if (this.byCall.get(request.callId)?.request !== request) return false;
    this.byCall.delete(request.callId);
    const open = this.byRun.get(request.runId);
    open?.delete(request.callId);
    if (open?.size === 0) this.byRun.delete(request.runId);
    this.publish(request.runId);
    return true;
  }

  /** The run's open requests, oldest first. */
  list(runId: string | null): readonly R[] {
    const open = this.byRun.get(runId);
    return open === undefined ? [] : Array.from(open.values(), (entry) => entry.request);
  }

  /** The run's list on subscription, then after every change of it. */
  watch(runId: string | null): Observable<readonly R[]> {
    return new Observable<readonly R[]>((subscriber) => {
      let watch = this.watches.get(runId);
      if (watch === undefined) {
        watch = { subject: new BehaviorSubject(this.list(runId)), subscribers: 0, publishing: false, changed: false };
        this.watches.set(runId, watch);
      }
      const current = watch;
      current.subscribers++;
      const subscription = current.subject.subscribe(subscriber);
      return () => {
        subscription.unsubscribe();
        current.subscribers--;
        if (current.subscribers === 0 && this.watches.get(runId) === current) this.watches.delete(runId);
      };
    });
  }

  // A watcher that answers as it is told of a request changes the list while it is being sent: the new
  // list goes out after the one being sent, so every watcher gets the lists in order and the latest last.
  private publish(runId: string | null): void {
    const watch = this.watches.get(runId);
    if (watch === undefined) return;
    watch.changed = true;
    if (watch.publishing) return;
    watch.publishing = true;
    try {
      while (watch.changed) {
        watch.changed = false;
        watch.subject.next(this.list(runId));
      }
    } finally {
      watch.publishing = false;
    }
  }
}
