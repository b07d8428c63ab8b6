import type { Observable } from 'rxjs';
import type { ExecutionModel } from './ExecutionModel';
import type { ExecutionResult } from './ExecutionResult';

/**
 * Runs an {@link ExecutionModel} on an input: where and how a pattern's messages travel.
 *
 * @remarks
 * A plain function, the seam between a pattern and its transport. It returns a cold Observable: each
 * subscription is one run, which emits `running` snapshots and then one final {@link ExecutionResult};
 * unsubscribing cancels every agent call in flight and releases everything the run holds. Two ship
 * with the package: {@link OrchestratedDriver} (direct invocation, the default) and the backend made by
 * {@link ChannelBackend} (a `StreamingChannel` per run).
 *
 * @example
 * ```ts
 * import { OrchestratedDriver, type ExecutionBackend } from '@rxagents/patterns';
 * import { tap } from 'rxjs';
 *
 * // A backend that logs every final result, delegating the work to the driver.
 * const logged: ExecutionBackend<unknown> = (model, input) =>
 *   OrchestratedDriver(model, input).pipe(tap((r) => r.status !== 'running' && console.log(r.status)));
 * ```
 */
export type ExecutionBackend<T> = (model: ExecutionModel<T>, input: string) => Observable<ExecutionResult<T>>;
