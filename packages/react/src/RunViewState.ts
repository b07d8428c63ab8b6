import type { RunView } from '@rxagents/core';
import type { EventStreamStatus } from '@rxagents/web/client';

/**
 * Where reading a run's events stands: `connecting` before the first event, `live` while events
 * arrive, `reconnecting` while a stream's connection is lost and it tries again (the server restarting,
 * say: {@link RunViewState.connection} says which try and when), `ended` once the source completed (for
 * a stream, after the root run's `run-end`), `failed` when it errored (the error is in
 * {@link RunViewState.error}; a stream that gave up reconnecting fails with `EVENT_STREAM_DROPPED`).
 *
 * @example
 * ```ts
 * import type { RunViewStatus } from '@rxagents/react';
 *
 * const settled: readonly RunViewStatus[] = ['ended', 'failed'];
 * console.log(settled.includes('live')); // false
 * ```
 */
export type RunViewStatus = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'failed';

/**
 * What a component renders of a run: the latest {@link RunView}, how reading it stands, and why it
 * stopped when it failed.
 *
 * @remarks
 * `status` is the reading's, `view.status` the run's: a run a page stops watching may still be running
 * on the server, and a stream that failed (`status: 'failed'`) leaves the view as far as it was read. A
 * failed stream's `error` is the Observable's error: from a URL, an `EventStreamError` (the server's
 * answer, a bad frame, a connection that could not be resumed) or a `RemoteRunError` (the run's own
 * error, as the server shows it; the nodes still open then show as ended). A value thrown that is not an
 * `Error` is wrapped in one, with the value as its `cause`.
 *
 * @example
 * ```ts
 * import type { RunViewState } from '@rxagents/react';
 *
 * const caption = ({ view, error, status, connection }: RunViewState): string =>
 *   status === 'failed'
 *     ? `stopped: ${error?.message}`
 *     : connection?.state === 'reconnecting'
 *       ? `reconnecting (try ${connection.attempt})...`
 *       : `${status}, run ${view.status}`;
 * console.log(typeof caption); // function
 * ```
 */
export interface RunViewState {
  /** The run as far as it was read: `emptyRunView` until the first event. */
  readonly view: RunView;
  /** Why reading failed, when `status` is `failed`. */
  readonly error: Error | undefined;
  readonly status: RunViewStatus;
  /**
   * The stream's latest connection status (`fromEventStream`'s `onStatus`: `connected`,
   * `reconnecting` with the attempt and its delay, `gave-up`); `undefined` before the first one, and
   * for an Observable source.
   */
  readonly connection: EventStreamStatus | undefined;
}
