import type { RunEvent, RunStatus, RunSummary } from '@rxagents/core';

/** What a registry says of a run it holds, kept up to date as its events pass: a `RunSummary` as a run store would make it. */
export class HeldRunSummary {
  private name = '';
  private status: RunStatus = 'running';
  private records = 0;
  private updatedAt: number;

  constructor(
    private readonly runId: string,
    private readonly createdAt: number,
  ) {
    this.updatedAt = createdAt;
  }

  /** One more event of the run, at `now`: the root's `run-start` names it, its `run-end` ends it. */
  saw(event: RunEvent, now: number): void {
    this.records++;
    this.updatedAt = now;
    if (event.parentCallId !== null) return;
    if (event.type === 'run-start' && this.name === '') this.name = event.name;
    else if (event.type === 'run-end' && this.status === 'running') this.status = event.success ? 'succeeded' : 'failed';
  }

  /** The run's events ended (an error, a cancellation: failed), at `now`. */
  ended(failed: boolean, now: number): void {
    if (this.status === 'running') this.status = failed ? 'failed' : 'succeeded';
    this.updatedAt = now;
  }

  get current(): RunSummary {
    return { runId: this.runId, name: this.name, status: this.status, records: this.records, createdAt: this.createdAt, updatedAt: this.updatedAt };
  }
}
