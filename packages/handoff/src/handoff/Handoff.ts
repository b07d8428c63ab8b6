import { asyncScheduler, defer, map, mergeMap, type Observable, type SchedulerLike, tap, throwError } from 'rxjs';
import { z } from 'zod';
import { AgentTimeoutError, configRules, lastValue, observeRun, parseConfig, preview, reportUnhandledError, traceResult, type Agent, type Message, type RunContext, type RunEvent, type RunEventsOptions } from '@rxagents/core';
import { currentHandoffChain } from '../guards/currentHandoffChain';
import { HandoffContractError } from '../errors/HandoffContractError';
import { HandoffTimeoutError } from '../errors/HandoffTimeoutError';
import type { HandoffRejectedError } from '../errors/HandoffRejectedError';
import type { HandoffApprovalUnavailableError } from '../errors/HandoffApprovalUnavailableError';
import { HandoffCallOptionsSchema, type HandoffCallOptions } from './HandoffCallOptions';
import { HandoffConfigSchema, resolveHandoffTimeout, type HandoffConfig, type ResolvedHandoffConfig } from './HandoffConfig';
import { evaluateEnabled$, type HandoffEnabledContext } from './HandoffEnabled';
import { approveHandoff$ } from './HandoffApproval';
import type { HandoffConditionContext } from './handoffFilters';
import type { HandoffOutcome, HandoffRunContext } from './HandoffOutcome';
import { HandoffRequestSchema, isMessage, type HandoffRequest } from './HandoffRequest';
import type { HandoffSource } from '../strategy/HandoffStrategy';
import { handoffToolDescription, handoffToolName } from '../tools/handoffToolName';
import { resolveHandoffToolPolicy } from '../tools/HandoffToolPolicy';
import { checkHandoffGuards } from '../guards/checkHandoffGuards';
import { describeCall } from '../internal/describeCall';
import { handoff$ } from './handoffEngine';
import { handoffInputOf } from './handoffInputOf';
import { handoffOutcomeOf } from './handoffOutcomeOf';
import { HandoffPermits } from '../guards/HandoffPermits';
import { checkContextObject, splitEventsOptions } from '../internal/rules';
import { checkToolParameters, reasonParameters, toolParameters } from '../tools/toolParameters';
import { toolNamesOf } from '../tools/toolNamesOf';
import { validateHandoffArguments } from './validateHandoffArguments';
import { selectMessages } from '../context/selectHandoffMessages';
import type { ToolDefinition } from '../tools/ToolCallingModel';

/** `execute$` takes the run only: unsubscribing cancels it. */
const HandoffExecuteRunSchema = HandoffCallOptionsSchema.pick({ run: true });

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
 * fails resolves with `success: false`, its `error` an `AgentError` naming the target with what it threw
 * as `cause` (the rule of every agent call). `execute$` is the Observable form; unsubscribing aborts the target.
 *
 * With `needsApproval`, a person must allow the transfer: after the guards and before anything else
 * (`onHandoff`, the `handoff` event, a permit, the timeout), the handoff asks `askForApproval(run, toolName,
 * { from, to, input, arguments })` in its run (`events$`, or `execute$` with `{ run }`). Approved, it goes on
 * as usual (its `durationMs` counts from the answer); refused, it rejects with {@link HandoffRejectedError}
 * (the person's `reason` on it) and the target never runs; with no run to ask in, it rejects with
 * {@link HandoffApprovalUnavailableError}. Unsubscribing while the question is open closes it.
 *
 * @throws {@link @rxagents/core!ConfigError | ConfigError} from the constructor when the config breaks a rule (an
 * `inputSchema` with no JSON Schema, such as one with a date or a set, included).
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
  readonly #scheduler: SchedulerLike;
  readonly #permits: HandoffPermits;
  /** The unit the timeout was configured in, so its error says it in that unit. */
  readonly #timeoutUnit: 'ms' | 's';

  constructor(config: HandoffConfig) {
    const parsed = parseConfig(HandoffConfigSchema, config, 'Handoff config');
    if (parsed.inputSchema !== undefined) checkToolParameters(parsed.inputSchema);
    // A tool the policy cannot name is refused now, not at the first transfer.
    toolNamesOf(parsed.agent, 'Handoff config', 'agent.');
    this.config = Object.freeze({ ...parsed, ...resolveHandoffTimeout(parsed) });
    this.agent = this.config.agent;
    this.toolName = this.config.name ?? handoffToolName(this.agent);
    this.toolDescription = this.config.description ?? handoffToolDescription(this.agent);
    this.#timeoutUnit = parsed.timeout === undefined && parsed.timeoutSeconds !== undefined ? 's' : 'ms';
    this.#scheduler = this.config.scheduler ?? asyncScheduler;
    this.#permits = new HandoffPermits(this.config.maxConcurrent, this.#scheduler, this.agent.id, !this.config.detectCycles);
  }

  /**
   * Whether this handoff's `condition` matches (`false` when it has none); throws {@link HandoffContractError} when the
   * condition answers anything but a boolean (a forgotten `return false`), and whatever the condition throws;
   * a `ConfigError` naming `context` when `context` is not an object.
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
    checkContextObject('Handoff.matches', context);
    const { condition } = this.config;
    if (condition === undefined) return false;
    const answer: unknown = condition(context);
    if (typeof answer !== 'boolean') {
      throw new HandoffContractError(`the condition of ${this.toolName}`, `answered ${preview(answer)}; it must answer a boolean`, answer);
    }
    return answer;
  }

  /**
   * Whether this handoff is offered on a call: its `isEnabled` setting, asked with `context` (a boolean at
   * once; a predicate's Promise through `from()`, an Observable's first value). Errors with what the
   * predicate threw, or a {@link HandoffContractError} when it answers anything but a boolean. Throws a
   * `ConfigError` naming `context` when `context` is not an object.
   *
   * @example
   * ```ts
   * import { defineAgent } from '@rxagents/core';
   * import { handoff } from '@rxagents/handoff';
   *
   * const billing = defineAgent('billing', async () => 'paid');
   * const h = handoff({ agent: billing, isEnabled: ({ metadata }) => metadata.tier === 'vip' });
   * const context = { source: { id: 'desk' }, target: billing, input: 'refund', messages: [], metadata: { tier: 'vip' }, handoffChain: [], run: undefined };
   * h.isEnabled$(context).subscribe((enabled) => console.log(enabled)); // true
   * ```
   */
  isEnabled$(context: HandoffEnabledContext): Observable<boolean> {
    checkContextObject('Handoff.isEnabled$', context);
    return evaluateEnabled$(this.config.isEnabled, context, `the isEnabled of ${this.toolName}`);
  }

  /**
   * The handoff as an OpenAI-style function tool; its parameters are the JSON Schema of what `inputSchema`
   * accepts (its input side: a field with a default is not required), or, without one, an optional
   * free-text `reason` (as PraisonAI's tool takes), which reaches the target, as the model sent it, in `metadata.handoffArguments`.
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
    const parameters: Record<string, unknown> = schema === undefined ? reasonParameters() : toolParameters(schema);
    return { type: 'function', function: { name: this.toolName, description: this.toolDescription, parameters } };
  }

  /**
   * Hands `request` from `source` to the target; emits one {@link HandoffOutcome}, errors on a guard.
   * With `options.run`, the handoff is a `handoff` node of that run (see {@link Handoff.events$} for
   * what it says); `options` takes nothing else (unsubscribe to cancel).
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
  execute$(source: HandoffSource, request: HandoffRequest, options?: Pick<HandoffCallOptions, 'run'>): Observable<HandoffOutcome> {
    const run = options === undefined ? undefined : parseConfig(HandoffExecuteRunSchema, options, 'Handoff execute options').run;
    if (run === undefined) return this.#execute$(source, request, undefined);
    return traceResult(run, 'handoff', handoffInputOf(request), (node) => this.#execute$(source, request, node), describeCall);
  }

  /**
   * The handoff's run events: the same handoff as {@link Handoff.execute$}, run as a new run named
   * `handoff` whose events you get as they happen.
   *
   * @remarks
   * One run per subscription: `run-start` (input: the request's input), a `handoff` event (`from`: the
   * source, `to`: the target, `taskId`: the request's `metadata.taskId` when it is a string, else the
   * tool name), the target's call (`call-start`, a `text-delta` per chunk as the target emits it,
   * `call-end` or `call-error`), then `run-end`. A guard (cycle, depth, timeout, concurrency, invalid
   * arguments) ends the run with `success: false` and its typed error serialised (name, message, code);
   * the events still complete normally. Every event's `at` is read from the handoff's `scheduler`.
   * Unsubscribing aborts the target.
   *
   * With `store` and `runId` the run is durable: journaled in the store, and resumed from its journal when the store already holds `runId` (finished agent calls are answered from it; see `docs/durable.md`).
   *
   * @param source - Who hands off.
   * @param request - The input, history and guards, as for `execute$`.
   * @returns The run's events.
   *
   * @example
   * ```ts
   * import { from } from 'rxjs';
   * import { defineAgent } from '@rxagents/core';
   * import { handoff } from '@rxagents/handoff';
   *
   * const billing = defineAgent('billing', () => from(['Invoice ', 'paid']));
   * handoff({ agent: billing })
   *   .events$({ id: 'triage' }, { input: 'invoice?' })
   *   .subscribe((event) => console.log(event.type)); // run-start, handoff, call-start, text-delta, text-delta, call-end, run-end
   * ```
   */
  events$(source: HandoffSource, request: HandoffRequest, eventsOptions: RunEventsOptions = {}): Observable<RunEvent> {
    const { run: runOptions } = splitEventsOptions('Handoff events options', eventsOptions);
    return observeRun('handoff', handoffInputOf(request), (run) => this.#execute$(source, request, run), { ...runOptions, scheduler: this.#scheduler, describe: describeCall });
  }

  #execute$(source: HandoffSource, request: HandoffRequest, run: RunContext | undefined): Observable<HandoffOutcome> {
    const { config, agent: target } = this;
    return defer(() => {
      let context: HandoffRunContext;
      let metadata: Record<string, unknown>;
      try {
        if (typeof source?.id !== 'string' || source.id.trim() === '') parseConfig(HandoffSourceSchema, source, 'Handoff source');
        const sourceTools = toolNamesOf(source, 'Handoff source');
        context = this.#prepare(source, parseConfig(HandoffRequestSchema, request, 'Handoff request') as HandoffRequest);
        metadata = this.#metadata(source, sourceTools, request, context);
      } catch (error) {
        this.#safely(() => config.onError?.(error));
        return throwError(() => error);
      }
      const transfer$ = (): Observable<HandoffOutcome> => {
        this.#safely(() => config.onHandoff?.(source, context));
        return handoff$<HandoffRunContext, HandoffOutcome>({
          from: source,
          to: target,
          prompt: context.input,
          context,
          chain: context.handoffChain,
          messages: context.messages,
          metadata,
          request: undefined,
          scheduler: this.#scheduler,
          timeout: config.timeout,
          signal: undefined,
          permits: this.#permits,
          observers: undefined,
          shape: handoffOutcomeOf,
          run,
          taskId: run === undefined ? '' : this.#taskIdOf(request),
        });
      };
      // Asked before a permit is taken and before the timeout starts: a person's wait bounds neither.
      const outcome$ = config.needsApproval === false ? transfer$() : this.#approved$(source, request, context, run).pipe(mergeMap(transfer$));
      return outcome$.pipe(
        map((outcome) => {
          // Only this handoff's own timeout is a guard; a nested handoff timing out inside the target is the target failing.
          if (!outcome.success && outcome.error instanceof AgentTimeoutError && outcome.error.agentId === target.id) {
            throw new HandoffTimeoutError(target.id, config.timeout, outcome.error, { sourceAgentId: source.id, unit: this.#timeoutUnit });
          }
          return outcome;
        }),
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
    const { run, signal } = options;
    return lastValue(this.execute$(source, request, run === undefined ? undefined : { run }), signal === undefined ? {} : { signal });
  }

  #prepare(source: HandoffSource, request: HandoffRequest): HandoffRunContext {
    const { config, agent: target } = this;
    const args = validateHandoffArguments(config.inputSchema, request.arguments, this.toolName, { sourceAgentId: source.id, targetAgentId: target.id });
    const base = request.handoffChain ?? request.chain ?? currentHandoffChain();
    const path = Object.freeze([...base, source.id]);
    // O(1) bookkeeping for a re-entry: the key of the chain extended from the (usually known) chain in scope.
    this.#permits.extend(base, path);
    checkHandoffGuards(path, target.id, config.detectCycles, Math.max(base.length, request.depth ?? 0), request.maxDepth ?? request.max_depth ?? config.maxDepth);
    const history = request.messages ?? [];
    const filtered: unknown = config.inputFilter === undefined ? history : config.inputFilter(history);
    if (!Array.isArray(filtered)) {
      throw new HandoffContractError(`the inputFilter of ${this.toolName}`, `returned ${preview(filtered)}; it must return an array of messages`, filtered);
    }
    const stray = (filtered as unknown[]).findIndex((message) => !isMessage(message));
    if (stray >= 0) {
      const item: unknown = filtered[stray];
      throw new HandoffContractError(`the inputFilter of ${this.toolName}`, `returned ${preview(item)} at index ${stray}; it must return an array of messages ({ role, content })`, filtered);
    }
    const messages = selectMessages(filtered as Message[], config);
    return {
      input: request.input,
      messages: Object.freeze(messages),
      handoffChain: Object.freeze(path),
      ...(args === undefined ? {} : { arguments: args }),
    };
  }

  /** Emits once the transfer may happen: `needsApproval` says no approval is needed, or a person approved it in `run`. */
  #approved$(source: HandoffSource, request: HandoffRequest, context: HandoffRunContext, run: RunContext | undefined): Observable<unknown> {
    const { config } = this;
    const args = context.arguments ?? request.arguments;
    return approveHandoff$({
      setting: config.needsApproval,
      context: {
        source,
        target: this.agent,
        input: context.input,
        messages: request.messages ?? [],
        metadata: request.metadata ?? {},
        handoffChain: context.handoffChain,
        run,
        ...(args === undefined ? {} : { arguments: args }),
      },
      toolName: this.toolName,
      timeout: config.approvalTimeout,
    });
  }

  #metadata(source: HandoffSource, sourceTools: string[] | undefined, request: HandoffRequest, context: HandoffRunContext): Record<string, unknown> {
    const targetTools = toolNamesOf(this.agent, 'Handoff config', 'agent.');
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

  /** The task id of the `handoff` event: the request's `metadata.taskId` when it is a string, else the tool name. */
  #taskIdOf(request: HandoffRequest): string {
    const taskId = request.metadata?.taskId;
    return typeof taskId === 'string' ? taskId : this.toolName;
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
