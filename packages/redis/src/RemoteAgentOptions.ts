import { configRules, type RunContext, type TraceContext } from '@rxagents/core';
import { asyncScheduler } from 'rxjs';
import { z } from 'zod';

/**
 * The options of {@link remoteAgent}, checked by this schema (bad values fail with a `ConfigError`
 * naming the field).
 *
 * @example
 * ```ts
 * import { RemoteAgentOptionsSchema } from '@rxagents/redis';
 *
 * console.log(RemoteAgentOptionsSchema.parse({}).maxAttempts); // 3
 * ```
 */
export const RemoteAgentOptionsSchema = z.strictObject({
  /** The prefix of every Redis key; the same on callers and workers. */
  prefix: configRules.nonEmptyString().default('rxagents'),
  /**
   * `'attempt'` (default): an attempt's chunks are held until it ends, so the reply is always one attempt's
   * text, even when a worker dies mid-call. `'live'`: chunks are delivered as they arrive; a restart after
   * text was delivered fails the call with a retryable `RemoteCallRestartedError`.
   */
  delivery: z.enum(['attempt', 'live']).default('attempt'),
  /** How many times a call may be started (first run plus restarts after worker crashes) before it fails with `RemoteCallAttemptsError`. */
  maxAttempts: configRules.positiveInt(100).default(3),
  /** The caller's lease, in ms (at least 30; renewed every third of it): when the caller dies, its calls stop on the workers at most this long (plus a worker's `leaseCheckMs`) later; until then a caller resumed with a call's `idempotencyKey` re-attaches to it. */
  leaseMs: configRules.positiveInt(86_400_000).min(30, 'must be at least 30').default(10_000),
  /** The approximate bound (`MAXLEN ~`) of the agent's call stream: calls not yet finished. */
  callsMaxLen: configRules.positiveInt().default(10_000),
  /** The clock of the lease renewals. */
  scheduler: configRules.scheduler().default(asyncScheduler),
  /**
   * Gives the W3C trace context of the caller's span for a call, which the call entry carries to the worker
   * (the worker's agent finds it in `ChatOptions.traceContext`), so the worker's spans join the caller's trace.
   * Called with the call's run (`ChatOptions.run`, `undefined` outside a run) as each call is sent;
   * `@rxagents/otel`'s `RunTraceContexts.traceContextOf` is one. A call that has no such function, or for which
   * it gives `undefined` or a malformed context, passes on `ChatOptions.traceContext` when it has one (an agent
   * on a worker calling further), else no trace context.
   */
  traceContext: configRules.function<(run: RunContext | undefined) => TraceContext | undefined>().optional(),
  /** The returned agent's `name`. */
  name: z.string().optional(),
  /** The returned agent's `role`. */
  role: z.string().optional(),
  /** The returned agent's `goal`. */
  goal: z.string().optional(),
});

/**
 * The options of {@link remoteAgent}; every field is optional.
 *
 * @example
 * ```ts
 * import type { RemoteAgentOptions } from '@rxagents/redis';
 *
 * const options: RemoteAgentOptions = { delivery: 'live', maxAttempts: 2 };
 * console.log(options.delivery); // live
 * ```
 */
export type RemoteAgentOptions = z.input<typeof RemoteAgentOptionsSchema>;
