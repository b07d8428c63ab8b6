import { asyncScheduler, catchError, defer, map, Observable, of, type SchedulerLike, tap, throwError } from 'rxjs';
import { z } from 'zod';
import { AgentTimeoutError, configRules, lastValue, parseConfig, preview, invoke$, reportUnhandledError, type Agent, type Message } from '@rxagents/core';
import { currentHandoffChain } from './currentHandoffChain';
import { HandoffContractError } from './errors/HandoffContractError';
import { HandoffCycleError } from './errors/HandoffCycleError';
import { HandoffDepthError } from './errors/HandoffDepthError';
import { HandoffTimeoutError } from './errors/HandoffTimeoutError';
import { HandoffValidationError } from './errors/HandoffValidationError';
import { HandoffConfigSchema, resolveHandoffTimeout, type HandoffConfig, type ResolvedHandoffConfig } from './HandoffConfig';
import type { HandoffConditionContext } from './handoffFilters';
import type { HandoffOutcome, HandoffRunContext } from './HandoffOutcome';
import { HandoffRequestSchema, type HandoffRequest } from './HandoffRequest';
import type { HandoffSource } from './HandoffStrategy';
import { handoffToolDescription, handoffToolName } from './handoffToolName';
import { resolveHandoffToolPolicy } from './HandoffToolPolicy';
import { ChainKeys } from './internal/ChainKeys';
import { Semaphore } from './internal/Semaphore';
import { toolNamesOf } from './internal/toolNamesOf';
import { underHandoffChain } from './internal/underHandoffChain';
import { selectMessages } from './selectHandoffMessages';
import type { ToolDefinition } from './ToolCallingModel';

/**
 * Per-call options of {@link Handoff.execute}.
 *
 * @example
 * ```ts
 * import type { HandoffCallOptions } from '@rxagents/handoff';
 *
 * const options: HandoffCallOptions = { signal: AbortSignal.timeout(30_000) };
 * ```
 */
export interface HandoffCallOptions {
  /** Aborting it aborts the target and rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/**
 * The zod schema of {@link HandoffCallOptions} (strict: an unknown key is a `ConfigError`).
 *
 * @example
 * ```ts
 * import { HandoffCallOptionsSchema } from '@rxagents/handoff';
 *
 * console.log(HandoffCallOptionsSchema.safeParse({ signl: AbortSignal.timeout(10) }).success); // false
 * ```
 */
export const HandoffCallOptionsSchema = z.strictObject({
  signal: configRules.abortSignal().optional(),
});

const HandoffSourceSchema = z.looseObject({ id: configRules.id() }, { error: 'must be an object with a non-blank id' });

/**
 * A configured handoff to one agent: guards, context policy, timeout, concurrency, and its tool form.
 *
 * @remarks
 * `execute(source, request)` runs, in order: argument validation (`inputSchema`), the cycle check, the
 * depth check (both before the chain is extended and before the target is touched, so a rejected handoff
 * never consumes a chain slot), context selection ({@link selectHandoffMessages}), then the target,
 * under this instance's semaphore (`maxConcurrent`) and bounded by `timeout` (ms; `timeoutSeconds` is converted to it). The target gets the
 * selected messages in `ChatOptions.context` (no agent is mutated) and runs under the extended chain, so
 * handoffs it starts see it. With `detectCycles: false`, a nested re-entry from within the target runs on
 * its caller's permit rather than waiting for one, so a recursion is bounded by `maxDepth`, never stuck on
 * the semaphore; re-entries from one caller (a fan-out) take turns on that permit. Cancelling a queued
 * call never starts its target, and a synchronous recursion runs in constant stack. Guard failures reject with {@link HandoffCycleError},
 * {@link HandoffDepthError}, {@link HandoffTimeoutError} or {@link HandoffValidationError}; a target that
 * fails resolves with `success: false`. `execute$` is the Observable form; unsubscribing aborts the target.
 *
 * @throws {@link @rxagents/core!ConfigError | ConfigError} from the constructor when the config breaks a rule.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { Handoff } from '@rxagents/handoff';
 *
 * const billing = defineAgent({ id: 'billing', name: 'Billing', chat: async () => 'Your invoice is paid.' });
 * const triage = defineAgent({ id: 'triage', chat: async () => '' });
 * const toBilling = new Handoff({ agent: billing, timeoutSeconds: 30, maxConcurrent: 3 });
 * const outcome = await toBilling.execute(triage, { input: 'A question about my invoice' });
 * console.log(toBilling.toolName, outcome.output, outcome.context.handoffChain); // transfer_to_billing Your invoice is paid. [ 'triage' ]
 * ```
 */
export class Handoff {
  /** The target agent. */
  readonly agent: Agent;
  /** The validated config, with every default applied. */
  readonly config: Readonly<ResolvedHandoffConfig>;
  /** The tool name the model calls, e.g. `transfer_to_billing`. */
  readonly toolName: string;
  /** The tool description the model reads. */
  readonly toolDescription: string;
  readonly #semaphore: Semaphore;
  readonly #scheduler: SchedulerLike;
  /** Chains this instance's target is running under (kept only when `detectCycles` is off). */
  readonly #running = new Map<number, RunningChain>();
  readonly #keys = new ChainKeys();

  constructor(config: HandoffConfig) {
    const parsed = parseConfig(HandoffConfigSchema, config, 'Handoff config');
    this.config = Object.freeze({ ...parsed, ...resolveHandoffTimeout(parsed) });
    this.agent = this.config.agent;
    this.toolName = this.config.name ?? handoffToolName(this.agent);
    this.toolDescription = this.config.description ?? handoffToolDescription(this.agent);
    this.#scheduler = this.config.scheduler ?? asyncScheduler;
    this.#semaphore = new Semaphore(this.config.maxConcurrent, this.#scheduler);
  }

  /**
   * Whether this handoff's `condition` matches (`false` when it has none); throws {@link HandoffContractError} when the
   * condition answers anything but a boolean (a forgotten `return false`), and whatever the condition throws.
   *
   * @example
   * ```ts
   * import { defineAgent } from '@rxagents/core';
   * import { handoff, handoffFilters } from '@rxagents/handoff';
   *
   * const billing = defineAgent('billing', async () => 'ok');
   * const h = handoff({ agent: billing, condition: handoffFilters.topic(['invoice']) });
   * console.log(h.matches({ input: 'my invoice', messages: [], metadata: {} })); // true
   * ```
   */
  matches(context: HandoffConditionContext): boolean {
    const { condition } = this.config;
    if (condition === undefined) return false;
    const answer: unknown = condition(context);
    if (typeof answer !== 'boolean') {
      throw new HandoffContractError(`the condition of ${this.toolName}`, `answered ${preview(answer)}; it must answer a boolean`, answer);
    }
    return answer;
  }

  /**
   * The handoff as an OpenAI-style function tool; its parameters are the JSON Schema of `inputSchema`.
   *
   * @example
   * ```ts
   * import { z } from 'zod';
   * import { defineAgent } from '@rxagents/core';
   * import { handoff } from '@rxagents/handoff';
   *
   * const refunds = defineAgent({ id: 'refunds', name: 'Refunds', chat: async () => 'ok' });
   * const tool = handoff({ agent: refunds, inputSchema: z.object({ orderId: z.string() }) }).toolDefinition();
   * console.log(tool.function.name, tool.function.parameters.required); // transfer_to_refunds [ 'orderId' ]
   * ```
   */
  toolDefinition(): ToolDefinition {
    const schema = this.config.inputSchema;
    const parameters: Record<string, unknown> =
      schema === undefined ? { type: 'object', properties: {}, additionalProperties: false } : { ...(z.toJSONSchema(schema) as Record<string, unknown>) };
    delete parameters.$schema;
    return { type: 'function', function: { name: this.toolName, description: this.toolDescription, parameters } };
  }

  /**
   * Hands `request` from `source` to the target; emits one {@link HandoffOutcome}, errors on a guard.
   *
   * @example
   * ```ts
   * import { defineAgent } from '@rxagents/core';
   * import { handoff } from '@rxagents/handoff';
   *
   * const billing = defineAgent('billing', async () => 'paid');
   * handoff({ agent: billing }).execute$({ id: 'triage' }, { input: 'invoice?' }).subscribe((outcome) => console.log(outcome.output));
   * ```
   */
  execute$(source: HandoffSource, request: HandoffRequest): Observable<HandoffOutcome> {
    const { config, agent: target } = this;
    return defer(() => {
      // The caller's chain, read where the caller subscribes (a queued run may be started from anywhere).
      const outer = currentHandoffChain();
      const start = this.#scheduler.now();
      const elapsed = (): number => this.#scheduler.now() - start;
      let context: HandoffRunContext;
      try {
        if (typeof source?.id !== 'string' || source.id.trim() === '') parseConfig(HandoffSourceSchema, source, 'Handoff source');
        context = this.#prepare(source, parseConfig(HandoffRequestSchema, request, 'Handoff request') as HandoffRequest);
      } catch (error) {
        this.#safely(() => config.onError?.(error));
        return throwError(() => error);
      }
      const run$ = invoke$(target, context.input, {
        scheduler: this.#scheduler,
        context: context.messages,
        metadata: this.#metadata(source, request, context),
        ...(config.timeout === Infinity ? {} : { timeout: config.timeout }),
      });
      return this.#bounded(context.handoffChain, underHandoffChain(context.handoffChain, outer, run$)).pipe(
        map((output): HandoffOutcome => outcomeOf({ success: true, handedOffTo: target.id, output, context }, elapsed())),
        catchError((error: unknown) =>
          error instanceof AgentTimeoutError && error.agentId === target.id
            ? throwError(() => new HandoffTimeoutError(target.id, config.timeout, error))
            : of(outcomeOf({ success: false, handedOffTo: target.id, output: null, context, error }, elapsed())),
        ),
        tap({
          next: (outcome) => this.#safely(() => (outcome.success ? config.onComplete?.(outcome) : config.onError?.(outcome.error))),
          error: (error: unknown) => this.#safely(() => config.onError?.(error)),
        }),
      );
    });
  }

  /**
   * The Promise form of {@link Handoff.execute$}: rejects on a guard, resolves otherwise.
   *
   * @example
   * ```ts
   * import { defineAgent } from '@rxagents/core';
   * import { handoff, HandoffCycleError } from '@rxagents/handoff';
   *
   * const billing = defineAgent('billing', async () => 'paid');
   * await handoff({ agent: billing })
   *   .execute({ id: 'triage' }, { input: 'invoice?', handoffChain: ['billing'] })
   *   .catch((error) => console.log(error instanceof HandoffCycleError)); // true
   * ```
   */
  execute(source: HandoffSource, request: HandoffRequest, options: HandoffCallOptions = {}): Promise<HandoffOutcome> {
    try {
      parseConfig(HandoffCallOptionsSchema, options, 'Handoff call options');
    } catch (error) {
      return Promise.reject(error);
    }
    return lastValue(this.execute$(source, request), options);
  }

  #prepare(source: HandoffSource, request: HandoffRequest): HandoffRunContext {
    const { config, agent: target } = this;
    const args = this.#validateArguments(request.arguments);
    const base = request.handoffChain ?? request.chain ?? currentHandoffChain();
    const path = Object.freeze([...base, source.id]);
    // O(1) bookkeeping for a re-entry: the key of the chain extended from the (usually known) chain in scope.
    if (!config.detectCycles) this.#keys.extend(base, path);
    if (config.detectCycles && path.includes(target.id)) throw new HandoffCycleError([...path, target.id]);
    const depth = Math.max(base.length, request.depth ?? 0);
    const maxDepth = request.maxDepth ?? request.max_depth ?? config.maxDepth;
    if (depth >= maxDepth) throw new HandoffDepthError(maxDepth, depth);
    const history = request.messages ?? [];
    const filtered: unknown = config.inputFilter === undefined ? history : config.inputFilter(history);
    if (!Array.isArray(filtered)) {
      throw new HandoffContractError(`the inputFilter of ${this.toolName}`, `returned ${preview(filtered)}; it must return an array of messages`, filtered);
    }
    const messages = selectMessages(filtered as Message[], config);
    const context: HandoffRunContext = {
      input: request.input,
      messages: Object.freeze(messages),
      handoffChain: Object.freeze(path),
      ...(args === undefined ? {} : { arguments: args }),
    };
    this.#safely(() => config.onHandoff?.(source, context));
    return context;
  }

  /**
   * `work$` under this instance's semaphore, except a nested re-entry from within its own target, which
   * runs on the permit its caller holds: waiting for it would hang forever once the recursion is
   * `maxConcurrent` deep. Re-entries from one caller take turns on that permit (its lane), so a target
   * that fans out through its own handoff runs one branch at a time, not all of them at once. With
   * `detectCycles` on, such a re-entry is refused by the cycle check instead.
   */
  #bounded<T>(chain: readonly string[], work$: Observable<T>): Observable<T> {
    if (this.config.detectCycles) return this.#semaphore.run(work$);
    const tracked$ = this.#tracked(chain, work$);
    const caller = this.#reentryOf(this.#keys.keyOf(chain));
    return caller === undefined ? this.#semaphore.run(tracked$) : this.#onLane(caller, tracked$);
  }

  /**
   * The key of the chain this instance runs the target under that a handoff along the chain `path`
   * re-enters from within: the innermost prefix of `path` that is such a chain and is followed by the
   * target. Undefined for an independent caller. O(1) for a direct re-entry (`[...chain, target]`).
   */
  #reentryOf(path: number): number | undefined {
    const target = this.agent.id;
    for (let node = this.#keys.parentOf(path); node !== undefined; node = this.#keys.parentOf(node.parent)) {
      if (node.id === target && this.#running.has(node.parent)) return node.parent;
    }
    return undefined;
  }

  /** Records, while `work$` runs, that the target runs under `chain` (read by `#reentryOf`). */
  #tracked<T>(chain: readonly string[], work$: Observable<T>): Observable<T> {
    return new Observable<T>((subscriber) => {
      // Keyed when it starts running, not when queued: keys are forgotten whenever nothing runs.
      const key = this.#keys.keyOf(chain);
      const running = this.#enter(key);
      running.holders += 1;
      const subscription = work$.subscribe(subscriber);
      return () => {
        subscription.unsubscribe();
        running.holders -= 1;
        this.#leave(key, running);
      };
    });
  }

  /** `work$` on the lane of the running chain `key`: one re-entry at a time on its caller's permit. */
  #onLane<T>(key: number, work$: Observable<T>): Observable<T> {
    return new Observable<T>((subscriber) => {
      const running = this.#enter(key);
      running.borrowers += 1;
      const subscription = running.lane.run(work$).subscribe(subscriber);
      return () => {
        subscription.unsubscribe();
        running.borrowers -= 1;
        this.#leave(key, running);
      };
    });
  }

  #enter(key: number): RunningChain {
    let running = this.#running.get(key);
    if (running === undefined) {
      running = { holders: 0, borrowers: 0, lane: new Semaphore(1, this.#scheduler) };
      this.#running.set(key, running);
    }
    return running;
  }

  #leave(key: number, running: RunningChain): void {
    if (running.holders === 0 && running.borrowers === 0 && this.#running.get(key) === running) this.#running.delete(key);
    // With nothing running, no key is referred to: forget them all, so interned chains never pile up.
    if (this.#running.size === 0) this.#keys.clear();
  }

  #validateArguments(raw: unknown): unknown {
    const schema = this.config.inputSchema;
    if (schema === undefined) return raw;
    let value: unknown = raw ?? {};
    if (typeof value === 'string') {
      try {
        value = value.trim() === '' ? {} : (JSON.parse(value) as unknown);
      } catch (error) {
        throw new HandoffValidationError(this.toolName, [`arguments are not valid JSON: ${(error as Error).message}`], error);
      }
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      throw new HandoffValidationError(
        this.toolName,
        parsed.error.issues.map((issue) => `${issue.path.length === 0 ? 'arguments' : issue.path.join('.')}: ${issue.message}`),
        parsed.error,
      );
    }
    return parsed.data;
  }

  #metadata(source: HandoffSource, request: HandoffRequest, context: HandoffRunContext): Record<string, unknown> {
    const targetTools = toolNamesOf(this.agent);
    const sourceTools = toolNamesOf(source);
    return {
      ...request.metadata,
      handoffChain: context.handoffChain,
      sourceAgentId: source.id,
      handoffTool: this.toolName,
      ...(context.arguments === undefined ? {} : { handoffArguments: context.arguments }),
      ...(targetTools === undefined && sourceTools === undefined
        ? {}
        : { allowedTools: resolveHandoffToolPolicy(targetTools ?? [], sourceTools, this.config.toolPolicy) }),
    };
  }

  #safely(callback: () => void): void {
    try {
      callback();
    } catch (error) {
      // A user callback never breaks a handoff; its error is reported as unhandled (RxJS's onUnhandledError).
      reportUnhandledError(error);
    }
  }
}

/** An outcome with its duration in ms and, derived from it, in seconds. */
function outcomeOf(fields: Omit<HandoffOutcome, 'durationMs' | 'durationSeconds'>, durationMs: number): HandoffOutcome {
  return { ...fields, durationMs, durationSeconds: durationMs / 1000 };
}

/** A chain this instance runs its target under: how many runs, how many re-entries wait or run on its lane. */
interface RunningChain {
  holders: number;
  borrowers: number;
  readonly lane: Semaphore;
}


/**
 * Creates a {@link Handoff}: the same as `new Handoff(config)`.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { handoff } from '@rxagents/handoff';
 *
 * const billing = defineAgent({ id: 'billing', name: 'Billing', chat: async () => 'paid' });
 * const h = handoff({ agent: billing, contextPolicy: 'last_n', maxContextMessages: 10, detectCycles: true, maxDepth: 5 });
 * console.log(h.config.timeout, h.config.timeoutSeconds); // 300000 300
 * ```
 */
export function handoff(config: HandoffConfig): Handoff {
  return new Handoff(config);
}
