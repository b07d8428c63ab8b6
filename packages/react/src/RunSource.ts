import type { Observable } from 'rxjs';
import type { RunEvent } from '@rxagents/core';

/**
 * Where a run's events come from: the URL of a Server-Sent Events stream (a run registry's
 * `response`, `toEventStreamResponse`), a `Request` for one, a `Response` already fetched, or an
 * Observable of run events (`observeRun`, a pattern's `events$`, `fromEventStream` itself).
 *
 * @remarks
 * A URL, a `Request` and a `Response` are read with `fromEventStream` from `@rxagents/web/client`: each
 * value checked against the run events' rules, a dropped connection resumed with `Last-Event-ID`. A
 * `Response` can be read once and is never resumed. An Observable is subscribed as it is: a cold one (an
 * `observeRun`) starts its run when the page subscribes and is cancelled when it unsubscribes.
 *
 * @example
 * ```ts
 * import { of } from 'rxjs';
 * import type { RunSource } from '@rxagents/react';
 *
 * const sources: RunSource[] = ['/runs/abc/events', new URL('https://example.com/runs/abc/events'), of()];
 * console.log(sources.length); // 3
 * ```
 */
export type RunSource = string | URL | Request | Response | Observable<RunEvent>;
