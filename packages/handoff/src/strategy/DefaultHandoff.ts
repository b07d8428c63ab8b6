import { asyncScheduler, defer, type Observable } from 'rxjs';
import { z } from 'zod';
import { configRules, lastValue, observeRun, parseConfig, reportUnhandledError, traceResult, type Agent, type AgentCallResult, type RunContext, type RunEvent, type RunEventsOptions } from '@rxagents/core';
import { HandoffContext } from '../context/HandoffContext';
import { checkHandoffCall, splitEventsOptions } from '../internal/rules';
import type { HandoffListener } from './HandoffListener';
import type { HandoffResult } from './HandoffResult';
import type { HandoffExecuteOptions, HandoffPrompt, HandoffSource, HandoffStrategy } from './HandoffStrategy';
import { defaultHandoffPrompt } from './defaultHandoffPrompt';
import { describeCall } from '../internal/describeCall';
import { handoff$, type HandoffObservers, type HandoffSpec } from '../handoff/handoffEngine';

/**
 * The zod schema of {@link HandoffExecuteOptions}, used for a {@link DefaultHandoff}'s per-call options (its
 * defaults take the same fields but `run`).
 *
 * @example
 * ```ts
 * import { HandoffExecuteOptionsSchema } from '@rxagents/handoff';
 *
 * console.log(HandoffExecuteOptionsSchema.safeParse({ timeout: -1 }).success); // false
 * console.log(HandoffExecuteOptionsSchema.safeParse({ timeout: Infinity }).success); // true
 * ```
 */
export const HandoffExecuteOptionsSchema = z.strictObject({
  timeout: configRules.timeoutMs().optional(),
  scheduler: configRules.scheduler().optional(),
  signal: configRules.abortSignal().optional(),
  prompt: configRules.function<HandoffPrompt>().optional(),
  run: configRules.runContext().optional(),
});

/** A strategy's defaults: every per-call option but the run, which belongs to one call. */
const HandoffDefaultsSchema = HandoffExecuteOptionsSchema.omit({ run: true });

const listenerMethod = configRules.function<(...args: never[]) => void>().optional();
const HandoffListenerSchema = z.strictObject({ onBefore: listenerMethod, onAfter: listenerMethod, onFailed: listenerMethod });

/**
 * The shipped {@link HandoffStrategy}: a `HANDOFF_REQUEST` message, then one `chat` call.
 *
 * @remarks
 * For each handoff it delivers a `HANDOFF_REQUEST` {@link @rxagents/core!AgentMessage | AgentMessage} (payload: the context's payload
 * plus `taskId`) to the receiver's `receive`, if it has one, then calls its `chat` with the prompt the
 * `prompt` option builds from the context (by default {@link defaultHandoffPrompt}: `Process handoff
 * task: <taskId> | payload: <payload as JSON>`) and the context's metadata (plus
 * `taskId`) in `ChatOptions.metadata`, through core's `callAgent`. The result is that call's
 * `AgentCallResult` (`input` is the prompt, `output` the whole reply) with the handoff's fields;
 * `startedAt` and `durationMs` are measured on `scheduler`. Anything thrown, rejected, errored, timed out
 * or aborted gives a failure result with `error` (an `Error`) and no `output`, and so does an `async
 * receive` whose Promise rejects before the reply (the chat is then aborted). Listeners are notified
 * before, after a success and on a failure; a throwing listener changes nothing (its error is reported
 * as unhandled). The receiver runs under the handoff chain in scope extended
 * with the sender, so handoffs it starts see where they come from. A context with a `maxDepth` (or
 * `max_depth`) is refused when that chain is already as deep: a failure result carrying a
 * {@link HandoffDepthError}, before the prompt is built or the receiver touched; listeners hear `onFailed`. The options given to the constructor
 * are defaults; a call's options override those they set, and one left `undefined` keeps its default.
 *
 * @throws {@link @rxagents/core!ConfigError | ConfigError} from the constructor or `execute$` when options are invalid.
 *
 * @example
 * ```ts
 * import { defineAgent } from '@rxagents/core';
 * import { DefaultHandoff, HandoffContext } from '@rxagents/handoff';
 *
 * const intake = defineAgent('intake', async () => 'ok');
 * const billing = defineAgent('billing', async (input) => `billing got: ${input}`);
 * const handoff = new DefaultHandoff({ timeout: 30_000 });
 * const result = await handoff.execute(intake, billing, HandoffContext.of('ticket-7', { invoiceId: '42' }));
 * console.log(result.output); // billing got: Process handoff task: ticket-7 | payload: {"invoiceId":"42"}
 * ```
 */
export class DefaultHandoff implements HandoffStrategy {
  private readonly listeners = new Set<{ readonly listener: HandoffListener }>();
  private readonly defaults: Omit<HandoffExecuteOptions, 'run'>;

  constructor(options: Omit<HandoffExecuteOptions, 'run'> = {}) {
    this.defaults = parseConfig(HandoffDefaultsSchema, options, 'DefaultHandoff options');
  }

  /**
   * Adds a listener; returns a function that removes it.
   *
   * @throws {@link @rxagents/core!ConfigError | ConfigError} when a method is not a function, or a plain object has a key other
   * than `onBefore`, `onAfter` and `onFailed` (a misspelt method would never be called).
   *
   * @example
   * ```ts
   * import { DefaultHandoff } from '@rxagents/handoff';
   *
   * const handoff = new DefaultHandoff();
   * const remove = handoff.addListener({ onFailed: (result) => console.error(result.error) });
   * remove();
   * ```
   */
  addListener(listener: HandoffListener): () => void {
    // A plain object is strict (a misspelt method would never be called); an instance of a class of yours may hold state of its own.
    const plain = typeof listener === 'object' && listener !== null && [Object.prototype, null].includes(Object.getPrototypeOf(listener));
    parseConfig(plain ? HandoffListenerSchema : HandoffListenerSchema.loose(), listener, 'HandoffListener');
    const entry = { listener };
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  /**
   * Hands `context` from `from` to `to`; emits exactly one {@link HandoffResult}, never errors.
   *
   * @example
   * ```ts
   * import { defineAgent } from '@rxagents/core';
   * import { DefaultHandoff, HandoffContext } from '@rxagents/handoff';
   *
   * const writer = defineAgent('writer', async () => 'draft');
   * new DefaultHandoff().execute$({ id: 'editor' }, writer, HandoffContext.of('t-1')).subscribe((r) => console.log(r.output));
   * ```
   */
  execute$(from: HandoffSource, to: Agent, context: HandoffContext, options?: HandoffExecuteOptions): Observable<HandoffResult> {
    const settings = this.settings(from, to, context, options);
    const spec = this.spec(from, to, context, settings);
    const run = settings.run;
    if (run === undefined) return handoff$(spec);
    return traceResult(run, 'handoff', context.taskId, (node) => handoffUnder(spec, node), describeCall);
  }

  /**
   * The handoff's run events: the same handoff as {@link DefaultHandoff.execute$}, run as a new run
   * named `handoff` whose events you get as they happen.
   *
   * @remarks
   * One run per subscription: `run-start` (input: the task id), a `handoff` event (`from`, `to`,
   * `taskId`), the receiver's call (`call-start`, a `text-delta` per chunk as the receiver emits it,
   * `call-end` or `call-error` with the error serialised), then `run-end` with the result's `success` and
   * `output` or `error`; then completion. Unsubscribing aborts the receiver. To put the handoff inside a
   * run of your own, pass `run` to `execute$` instead.
   *
   * With `store` and `runId` the run is durable: journaled in the store, and resumed from its journal when the store already holds `runId` (finished agent calls are answered from it; see `docs/durable.md`).
   *
   * @param from - The sender.
   * @param to - The receiver.
   * @param context - The task.
   * @param options - As for `execute$`, without `run`; `scheduler` is also the clock of every event's `at`.
   * @returns The run's events.
   * @throws {@link @rxagents/core!ConfigError | ConfigError} when the arguments or options are invalid.
   *
   * @example
   * ```ts
   * import { from } from 'rxjs';
   * import { defineAgent } from '@rxagents/core';
   * import { DefaultHandoff, HandoffContext } from '@rxagents/handoff';
   *
   * const intake = defineAgent('intake', async () => 'ok');
   * const billing = defineAgent('billing', () => from(['Refund ', 'approved']));
   * new DefaultHandoff().events$(intake, billing, HandoffContext.of('ticket-7')).subscribe((event) => {
   *   if (event.type === 'handoff') console.log(`${event.from} -> ${event.to}`); // intake -> billing
   *   if (event.type === 'text-delta') console.log(event.delta);
   * });
   * ```
   */
  events$(from: HandoffSource, to: Agent, context: HandoffContext, eventsOptions?: Omit<HandoffExecuteOptions, 'run'> & RunEventsOptions): Observable<RunEvent> {
    const { run: runOptions, options } = splitEventsOptions('DefaultHandoff events options', eventsOptions);
    const settings = this.settings(from, to, context, options);
    const spec = this.spec(from, to, context, settings);
    return observeRun('handoff', context.taskId, (run) => handoffUnder(spec, run), { ...runOptions, scheduler: spec.scheduler, describe: describeCall });
  }

  /**
   * The Promise form of {@link DefaultHandoff.execute$}: resolves with the result, a failed handoff included; only invalid arguments reject (a `ConfigError`).
   *
   * @example
   * ```ts
   * import { defineAgent } from '@rxagents/core';
   * import { DefaultHandoff, HandoffContext } from '@rxagents/handoff';
   *
   * const writer = defineAgent('writer', async () => 'draft');
   * const result = await new DefaultHandoff().execute({ id: 'editor' }, writer, HandoffContext.of('t-1'));
   * console.log(result.success); // true
   * ```
   */
  execute(from: HandoffSource, to: Agent, context: HandoffContext, options?: HandoffExecuteOptions): Promise<HandoffResult> {
    // defer: an invalid argument rejects the Promise rather than throwing from the call.
    return lastValue(defer(() => this.execute$(from, to, context, options)));
  }

  /** The call's settings: the defaults, then the options `options` sets (one left `undefined` keeps its default); refuses bad arguments. */
  private settings(from: HandoffSource, to: Agent, context: HandoffContext, options: HandoffExecuteOptions | undefined): HandoffExecuteOptions {
    checkHandoffCall('DefaultHandoff', from, to, context, isHandoffContext);
    if (options === undefined) return this.defaults;
    const settings: Record<string, unknown> = { ...this.defaults };
    const given = parseConfig(HandoffExecuteOptionsSchema, options, 'DefaultHandoff execute options') as Record<string, unknown>;
    // `{ timeout: config.timeout }` with no timeout configured must not remove the default timeout.
    for (const key in given) if (given[key] !== undefined) settings[key] = given[key];
    return settings as HandoffExecuteOptions;
  }

  private spec(from: HandoffSource, to: Agent, context: HandoffContext, settings: HandoffExecuteOptions): HandoffSpec<HandoffContext, HandoffResult> {
    const { taskId, handoffChain, maxDepth } = context;
    const spec: HandoffSpec<HandoffContext, HandoffResult> = {
      from,
      to,
      prompt: settings.prompt ?? defaultHandoffPrompt,
      context,
      chain: handoffChain === undefined ? undefined : Object.freeze([...handoffChain, from.id]),
      messages: undefined,
      metadata: { ...context.metadata, taskId },
      request: to.receive === undefined ? undefined : { type: 'HANDOFF_REQUEST', from: from.id, to: to.id, payload: { ...context.payload, taskId } },
      scheduler: settings.scheduler ?? asyncScheduler,
      timeout: settings.timeout,
      signal: settings.signal,
      permits: undefined,
      observers: this.observers,
      shape: strategyResult,
    };
    // Only a context with a depth limit adds the guard's fields: the hot path builds none.
    return maxDepth === undefined ? spec : { ...spec, maxDepth, depth: context.depth };
  }

  private readonly observers: HandoffObservers<HandoffContext, HandoffResult> = {
    before: (from, to, context) => {
      if (this.listeners.size === 0) return;
      for (const { listener } of this.listeners) {
        try {
          listener.onBefore?.(from, to, context);
        } catch (error) {
          // A listener never breaks a handoff; its error is reported as unhandled (RxJS's onUnhandledError).
          reportUnhandledError(error);
        }
      }
    },
    result: (result) => {
      if (this.listeners.size === 0) return;
      const event = result.success ? 'onAfter' : 'onFailed';
      for (const { listener } of this.listeners) {
        try {
          listener[event]?.(result);
        } catch (error) {
          // A listener never breaks a handoff; its error is reported as unhandled (RxJS's onUnhandledError).
          reportUnhandledError(error);
        }
      }
    },
  };
}

/** A strategy's result: the receiver's call, who handed off to whom, and the context handed over. */
function strategyResult(call: AgentCallResult, spec: HandoffSpec<HandoffContext, HandoffResult>): HandoffResult {
  const { context } = spec;
  const { agentId, input, startedAt, durationMs } = call;
  const fromAgentId = spec.from.id;
  const taskId = context.taskId;
  // Written out rather than spread: a spread of the call is the slowest part of a hop (`pnpm bench handoff`).
  return call.success
    ? { success: true, agentId, input, output: call.output, startedAt, durationMs, fromAgentId, toAgentId: agentId, taskId, context }
    : { success: false, agentId, input, error: call.error, startedAt, durationMs, fromAgentId, toAgentId: agentId, taskId, context };
}

/** The handoff under the run node `run` (`undefined`: none). */
function handoffUnder(spec: HandoffSpec<HandoffContext, HandoffResult>, run: RunContext | undefined): Observable<HandoffResult> {
  return handoff$({ ...spec, run, taskId: spec.context.taskId });
}

function isHandoffContext(value: unknown): boolean {
  return value instanceof HandoffContext;
}
