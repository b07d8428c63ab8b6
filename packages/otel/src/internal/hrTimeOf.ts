import type { HrTime } from '@opentelemetry/api';

/**
 * A time in ms (an event's `at`) as an OpenTelemetry `HrTime` (`[seconds, nanoseconds]` since the epoch).
 * Handed to the tracer as such: the SDK would take a small number of ms for a `performance.now()` reading
 * and move it to the process's start, which a run on virtual time (`at` from 0) is not.
 */
export function hrTimeOf(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}
