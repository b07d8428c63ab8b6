import { ConfigError, type ConfigIssue, parseConfig, scheduleDelay } from '@rxagents/core';
import { asyncScheduler, Observable, type OperatorFunction, type Subscription } from 'rxjs';
import { CircuitBreakerOpenError } from './errors/CircuitBreakerOpenError';
import { LivelockDetector } from './LivelockDetector';
import { type LivelockDetectorOptions, LivelockDetectorOptionsSchema } from './LivelockDetectorOptions';
import type { LivelockEvent } from './LivelockEvent';
import type { LivelockViolation } from './LivelockViolation';

/**
 * Watches a stream of agent events and emits livelock violations as they happen.
 *
 * @remarks
 * Each subscription feeds its own {@link LivelockDetector} (same options and defaults). Violations
 * are emitted the moment they are found; a progress stall is found on time, by a timer on the
 * scheduler that fires when an agent's deadline for a new action passes (one pending timer per agent
 * at most, re-armed lazily, not one per event). When the circuit breaker trips, the tripping violation is
 * emitted and then the stream errors with {@link CircuitBreakerOpenError}, so a livelocked flow stops.
 * An event that is not a {@link LivelockEvent} (an unknown `kind`, a missing or non-string field)
 * errors the stream with a `ConfigError` naming the field, rather than being counted as something else.
 * The output completes when the source completes; source errors pass through.
 *
 * @param options - The detector's thresholds and scheduler; validated when the operator is created.
 * @throws `ConfigError` when an option breaks a rule.
 *
 * @example
 * ```ts
 * import { detectLivelock, type LivelockEvent } from '@rxagents/choreography';
 * import { Subject } from 'rxjs';
 *
 * const events = new Subject<LivelockEvent>();
 * events.pipe(detectLivelock({ repeatedMessageThreshold: 2 })).subscribe({
 *   next: (violation) => console.log(violation.type, violation.agentId),
 *   error: (error) => console.log('stopped:', error.message),
 * });
 * events.next({ kind: 'message', agentId: 'a', message: 'retry' });
 * events.next({ kind: 'message', agentId: 'a', message: 'retry' }); // REPEATED_MESSAGE a
 * ```
 */
export function detectLivelock(options: LivelockDetectorOptions = {}): OperatorFunction<LivelockEvent, LivelockViolation> {
  const scheduler = parseConfig(LivelockDetectorOptionsSchema, options, 'detectLivelock options').scheduler ?? asyncScheduler;
  return (source) =>
    new Observable<LivelockViolation>((subscriber) => {
      const detector = new LivelockDetector(options);
      const timers = new Map<string, Subscription>();
      detector.addListener({
        onViolation: (violation) => subscriber.next(violation),
        onCircuitBreakerOpen: (violations) => subscriber.error(new CircuitBreakerOpenError(violations.length)),
      });

      const watchProgress = (agentId: string): void => {
        if (timers.has(agentId)) return;
        const check = (): void => {
          timers.delete(agentId);
          const deadline = detector.stallDeadline(agentId);
          if (deadline === undefined) return;
          const remaining = deadline - scheduler.now();
          if (remaining > 0) timers.set(agentId, scheduleDelay(scheduler, remaining, check));
          else detector.analyze();
        };
        const deadline = detector.stallDeadline(agentId);
        if (deadline !== undefined) timers.set(agentId, scheduleDelay(scheduler, Math.max(0, deadline - scheduler.now()), check));
      };

      const subscription = source.subscribe({
        next: (event) => {
          try {
            const malformed = malformedField(event);
            if (malformed !== undefined) throw new ConfigError('detectLivelock event', [malformed]);
            if (event.kind === 'message') detector.recordMessage(event.agentId, event.message);
            else if (event.kind === 'state') detector.recordStateChange(event.agentId, event.state);
            else {
              detector.recordAction(event.agentId, event.action);
              watchProgress(event.agentId);
            }
          } catch (error) {
            subscriber.error(error);
          }
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });

      return () => {
        subscription.unsubscribe();
        for (const timer of timers.values()) timer.unsubscribe();
        timers.clear();
      };
    });
}

/** The first field that keeps `event` from being a LivelockEvent (events may come from untyped sources). */
function malformedField(event: LivelockEvent): ConfigIssue | undefined {
  if (typeof event !== 'object' || event === null) return { path: '', rule: 'must be an event object { kind, agentId, ... }', received: event };
  const record = event as unknown as Record<string, unknown>;
  const kind = record['kind'];
  if (kind !== 'message' && kind !== 'state' && kind !== 'action') {
    return { path: 'kind', rule: 'must be "message", "state" or "action"', received: kind };
  }
  if (typeof record['agentId'] !== 'string') return { path: 'agentId', rule: 'must be a string', received: record['agentId'] };
  // Each kind carries its payload in the field of the same name.
  if (typeof record[kind] !== 'string') return { path: kind, rule: 'must be a string', received: record[kind] };
  return undefined;
}
