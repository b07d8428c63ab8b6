import { asyncScheduler, defer, from, Observable, type ObservableInput, type SchedulerLike, Subscriber, type Subscription, switchMap, takeWhile, type TeardownLogic } from 'rxjs';
import { z } from 'zod';
import type { Agent, ChatOptions } from './Agent';
import * as configRules from './configRules';
import { scheduleDelay } from './delay';
import { AgentError } from './errors/AgentError';
import { AgentTimeoutError } from './errors/AgentTimeoutError';
import { ConfigError } from './errors/ConfigError';
import { LazyAbort } from './internal/LazyAbort';
import { MAX_DELAY_MS } from './limits';
import type { Message } from './Message';
import { parseConfig } from './parseConfig';
import { reportUnhandledError } from './reportUnhandledError';
import { newRunId } from './events/ids';
import type { RunContext } from './events/RunContext';
import { serializeError } from './events/SerializedError';
import { abortError } from './internal/abortError';

/**
 * Options of every agent call: {@link stream}, {@link invoke$}, {@link invoke} and {@link callAgent}.
 *
 * @remarks
 * All optional, and strict: an unknown key (a typo such as `timout`) is a `ConfigError` naming it.
 * `context` and `metadata` reach the agent as {@link ChatOptions}; `timeout` is a number of
 * milliseconds greater than 0 and at most {@link MAX_DELAY_MS}, measured on `scheduler`, or
 * `Infinity` for no timeout (the same as leaving it out).
 *
 * @example
 * ```ts
 * import { defineAgent, invoke$, type AgentCallOptions } from '@rxagents/core';
 *
 * const agent = defineAgent('support', async (input, { context = [] }) => `${input} [history: ${context.length}]`);
 * const options: AgentCallOptions = {
 *   timeout: 10_000,
 *   context: [{ role: 'user', content: 'My invoice is wrong' }],
 *   metadata: { taskId: 'ticket-7' },
 * };
 * invoke$(agent, 'Please check it', options).subscribe(console.log); // Please check it [history: 1]
 * ```
 */
export interface AgentCallOptions {
  /** Fails with {@link AgentTimeoutError} when the whole reply takes longer than this, in ms (on `scheduler`); `Infinity` for none. */
  readonly timeout?: number;
  /** The clock for `timeout`. Defaults to `asyncScheduler`, so `TestScheduler.run` virtualises it. */
  readonly scheduler?: SchedulerLike;
  /** History shared with the agent, passed as {@link ChatOptions.context}. */
  readonly context?: readonly Message[];
  /** Facts passed as {@link ChatOptions.metadata}. */
  readonly metadata?: Readonly<Record<string, unknown>>;
  /**
   * The run to report this call into: `call-start`, a `text-delta` per chunk, `call-end` or `call-error`.
   * The agent gets a context nested under this call as {@link ChatOptions.run}.
   */
  readonly run?: RunContext;
}

/**
 * Calls an agent and streams its reply's chunks as a cold Observable.
 *
 * @remarks
 * Accepts every form {@link Agent.chat} may return (a Promise, an Observable, an AsyncIterable) and
 * a synchronous throw. Each subscription calls the agent once, with a fresh `AbortSignal` that
 * aborts on unsubscription and on timeout; chunks arriving after that are ignored. (The signal's
 * `AbortController` is created when the agent first reads `options.signal`; an abort before that
 * read is remembered, so the agent always sees the truth.) Anything
 * the agent throws or errors with is delivered as an {@link AgentError} naming the agent (an
 * `AgentError` the agent raised about itself passes through unchanged); a passed `timeout` is an
 * {@link AgentTimeoutError}.
 *
 * The timeout is a timer on `scheduler`, and it is also checked against `scheduler.now()` on every
 * chunk, so an agent that streams without ever yielding to the event loop (a synchronous generator,
 * an async generator that only awaits already-settled Promises) is still cut off at its first chunk
 * past the deadline. What remains out of reach: an agent whose `chat` blocks the thread without
 * emitting (a busy loop) cannot be interrupted by anything in JavaScript.
 *
 * @param agent - The agent to call.
 * @param input - The prompt.
 * @param options - Timeout, scheduler, context and metadata.
 * @returns The reply's chunks, in order; completes when the agent is done.
 * @throws {@link ConfigError} synchronously when `input` is not a string or an option is unknown or invalid.
 *
 * @example
 * ```ts
 * import { defineAgent, stream } from '@rxagents/core';
 * import { from } from 'rxjs';
 *
 * const writer = defineAgent('writer', () => from(['Once ', 'upon ', 'a time']));
 * stream(writer, 'Tell a story', { timeout: 30_000 }).subscribe((chunk) => console.log(chunk));
 * ```
 *
 * @see {@link invoke$} and {@link invoke} for the joined reply.
 */
export function stream(agent: Agent, input: string, options: AgentCallOptions = {}): Observable<string> {
  checkCall(agent, input, options);
  return options.run === undefined ? agentCall(agent, input, options, undefined) : pacedCall(agent, input, options, options.run);
}

/** Refuses what {@link stream} refuses: an input that is not a string, unknown or invalid options. */
export function checkCall(agent: Agent, input: string, options: AgentCallOptions): void {
  if (typeof input !== 'string') {
    throw new ConfigError(agentName(agent), [{ path: 'input', rule: 'must be a string', received: input }]);
  }
  checkOptions(options);
}

/** A paced run waits for its reader before it starts another call. */
function pacedCall(agent: Agent, input: string, options: AgentCallOptions, run: RunContext): Observable<string> {
  const { pace } = run;
  if (pace === undefined) return agentCall(agent, input, options, run);
  return defer(() => {
    const gate = pace();
    return gate === undefined ? agentCall(agent, input, options, run) : from(gate).pipe(switchMap(() => agentCall(agent, input, options, run)));
  });
}

/** One call's node in a run: `call-start` when made, a `text-delta` per chunk, then `call-end` or `call-error`. */
class CallTrace {
  readonly runId: string;
  readonly callId: string;
  readonly parentCallId: string | null;
  readonly agentId: string;
  readonly scheduler: SchedulerLike;
  readonly emit: RunContext['emit'];
  readonly startedAt: number;
  /** The context the agent gets as `ChatOptions.run`: nested under this call. */
  readonly child: RunContext;
  ended = false;

  constructor(run: RunContext, agentId: string, input: string) {
    this.runId = run.runId;
    this.callId = newRunId();
    this.parentCallId = run.callId;
    this.agentId = agentId;
    this.scheduler = run.scheduler;
    this.emit = run.emit;
    this.startedAt = run.scheduler.now();
    this.child = { runId: run.runId, callId: this.callId, parentCallId: run.callId, scheduler: run.scheduler, emit: run.emit, pace: run.pace };
    this.emit({ type: 'call-start', runId: this.runId, callId: this.callId, parentCallId: this.parentCallId, at: this.startedAt, agentId, input });
  }

  delta(delta: string): void {
    this.emit({ type: 'text-delta', runId: this.runId, callId: this.callId, parentCallId: this.parentCallId, at: this.scheduler.now(), agentId: this.agentId, delta });
  }

  end(): void {
    this.ended = true;
    const at = this.scheduler.now();
    this.emit({ type: 'call-end', runId: this.runId, callId: this.callId, parentCallId: this.parentCallId, at, agentId: this.agentId, durationMs: at - this.startedAt });
  }

  fail(error: unknown): void {
    if (this.ended) return;
    this.ended = true;
    const at = this.scheduler.now();
    this.emit({ type: 'call-error', runId: this.runId, callId: this.callId, parentCallId: this.parentCallId, at, agentId: this.agentId, error: serializeError(error), durationMs: at - this.startedAt });
  }
}

function agentCall(agent: Agent, input: string, options: AgentCallOptions, run: RunContext | undefined): Observable<string> {
  return new Observable<string>((subscriber) => startCall(subscriber, agent, input, options, run));
}

/**
 * Calls `agent` once for `subscriber` (what subscribing to {@link stream} does, for an unpaced call whose
 * arguments {@link checkCall} accepted) and returns the call's teardown. `callAgent` uses it directly, without
 * an Observable of chunks in between.
 */
export function startCall(subscriber: Subscriber<string>, agent: Agent, input: string, options: AgentCallOptions, run: RunContext | undefined): TeardownLogic {
  const { timeout, scheduler = asyncScheduler, context, metadata } = options;
  const limited = timeout !== undefined && timeout !== Infinity;
  // No deadline is Infinity, so `scheduler.now() >= deadline` is never true without a timeout.
  const deadline = limited ? scheduler.now() + (timeout as number) : Infinity;
  const call = new Call(subscriber, agent.id, run === undefined ? undefined : new CallTrace(run, agent.id, input), scheduler, limited ? (timeout as number) : undefined, deadline);
  if (limited) call.timer = scheduleDelay(scheduler, timeout as number, () => call.fail(new AgentTimeoutError(agent.id, timeout as number)));

  let answer: ObservableInput<string>;
  let source: Observable<string> | undefined;
  try {
    answer = agent.chat(input, new CallChatOptions(call.controller, context, metadata, call.trace?.child));
    // A synchronous iterable or Observable can settle the call, or lose its caller, while `subscribe`
    // still runs; `takeWhile` then closes the agent's subscriber so it stops producing at once, and cuts
    // off one that streams past its deadline without yielding. A Promise never emits synchronously and
    // needs no such operator.
    const pace = run?.pace;
    if (!isPromiseLike(answer)) {
      source = (pace !== undefined && isPlainAsyncIterable(answer) ? pacedFrom(answer, pace) : from(answer)).pipe(takeWhile(() => call.goesOn()));
    }
  } catch (error) {
    call.settle();
    const failure = asAgentError(agent, error);
    call.trace?.fail(failure);
    subscriber.error(failure);
    return undefined;
  }

  if (source !== undefined) {
    source.subscribe(call);
  } else {
    // What `from(answer)` does with a Promise, without its Observable: the answer, then completion.
    try {
      (answer as PromiseLike<string>).then(
        (chunk) => {
          if (call.closed) return;
          call.next(chunk);
          call.complete();
        },
        (error: unknown) => call.error(error),
      ).then(undefined, reportUnhandledError);
    } catch (error) {
      call.error(error);
    }
  }
  return () => call.teardown();
}

/**
 * One agent call: whether it settled, its timer, its abort, and the observer of the agent's chunks (a
 * `Subscriber` of its own, so subscribing to the agent's reply wraps nothing; unsubscribing it stops the agent).
 */
class Call extends Subscriber<unknown> {
  readonly controller = new LazyAbort();
  settled = false;
  timer: Subscription | undefined = undefined;

  constructor(
    private readonly subscriber: Subscriber<string>,
    private readonly agentId: string,
    readonly trace: CallTrace | undefined,
    private readonly scheduler: SchedulerLike,
    /** The timeout, when the call has one. */
    private readonly timeout: number | undefined,
    private readonly deadline: number,
  ) {
    super();
  }

  /** Whether the agent may go on producing: the call is unsettled, its caller is there and its deadline not passed. */
  goesOn(): boolean {
    return !this.settled && !this.subscriber.closed && !this.pastDeadline();
  }

  protected override _next(chunk: unknown): void {
    if (this.settled || this.controller.isAborted) return;
    if (this.pastDeadline()) this.fail(new AgentTimeoutError(this.agentId, this.timeout as number));
    else if (typeof chunk !== 'string') this.fail(new AgentError(this.agentId, new TypeError(`chat emitted a ${typeof chunk} chunk; chunks must be strings`)));
    else {
      this.trace?.delta(chunk);
      this.subscriber.next(chunk);
    }
  }

  protected override _error(error: unknown): void {
    if (!this.settled) {
      this.settle();
      const failure = error instanceof AgentError && error.agentId === this.agentId ? error : new AgentError(this.agentId, error);
      this.trace?.fail(failure);
      this.subscriber.error(failure);
    }
    this.stopAgent();
  }

  protected override _complete(): void {
    // Closed: `takeWhile` cut the agent off because the caller left; the teardown aborts it.
    if (!this.settled && !this.subscriber.closed) {
      // `takeWhile` also cuts off a synchronous agent that streamed past its deadline.
      if (this.pastDeadline()) {
        this.fail(new AgentTimeoutError(this.agentId, this.timeout as number));
      } else {
        this.settle();
        this.trace?.end();
        this.subscriber.complete();
      }
    }
    this.stopAgent();
  }

  settle(): void {
    this.settled = true;
    this.timer?.unsubscribe();
  }

  /** Ends the call with `error`: aborts the agent (a timeout is the abort's reason) and stops it. */
  fail(error: AgentError | AgentTimeoutError): void {
    this.settle();
    this.controller.abort(error instanceof AgentTimeoutError ? error : undefined);
    this.stopAgent();
    this.trace?.fail(error);
    this.subscriber.error(error);
  }

  teardown(): void {
    this.timer?.unsubscribe();
    const cancelled = !this.settled;
    if (cancelled) {
      this.settled = true;
      this.controller.abort();
    }
    this.stopAgent();
    // After the agent stopped, so what it cancelled on its way out is reported inside its call.
    if (cancelled) this.trace?.fail(abortError(`call to agent '${this.trace.agentId}' was cancelled`));
  }

  private pastDeadline(): boolean {
    return this.timeout !== undefined && this.scheduler.now() >= this.deadline;
  }

  // The agent's teardown is user code: if it throws, the caller still gets the real outcome.
  private stopAgent(): void {
    try {
      this.unsubscribe();
    } catch (error) {
      reportUnhandledError(error);
    }
  }
}


const INVOKE_OPTION_KEYS = new Set(['timeout', 'scheduler', 'context', 'metadata', 'run']);

const AgentCallOptionsSchema = z.strictObject({
  timeout: configRules.timeoutMs().optional(),
  scheduler: configRules.scheduler().optional(),
  context: z.array(z.unknown(), { error: 'must be an array of messages' }).optional(),
  metadata: z.record(z.string(), z.unknown(), { error: 'must be an object' }).optional(),
  run: configRules.runContext().optional(),
});

// A fast check first (every agent call goes through here); zod only to word the error.
function checkOptions(options: AgentCallOptions): void {
  let valid = typeof options === 'object' && options !== null;
  if (valid) {
    for (const key in options) {
      if (!INVOKE_OPTION_KEYS.has(key)) valid = false;
    }
    const { timeout } = options;
    if (timeout !== undefined && !(typeof timeout === 'number' && (timeout === Infinity || (timeout > 0 && timeout <= MAX_DELAY_MS)))) valid = false;
    if (options.run !== undefined && !configRules.isRunContext(options.run)) valid = false;
  }
  if (!valid) parseConfig(AgentCallOptionsSchema, options, 'agent call options');
}

function agentName(agent: Agent): string {
  return typeof agent?.id === 'string' ? `call to agent '${agent.id}'` : 'agent call';
}

/**
 * What the agent gets as `ChatOptions`. The signal is an own, enumerable getter, so `{ ...options }` in a
 * wrapping agent still carries it. One getter shared by every call (reading a private field) rather than an
 * object literal's: a literal's getter is a new closure, so each call's options got a map of their own,
 * about 0.5 µs per call (`pnpm bench handoff`).
 */
class CallChatOptions implements ChatOptions {
  readonly #controller: LazyAbort;
  declare readonly signal: AbortSignal;
  // Declared, not defined: a key is there only when the call has that option (as with an object literal).
  declare context?: readonly Message[];
  declare metadata?: Readonly<Record<string, unknown>>;
  declare run?: RunContext;

  constructor(controller: LazyAbort, context: AgentCallOptions['context'], metadata: AgentCallOptions['metadata'], run: RunContext | undefined) {
    this.#controller = controller;
    Object.defineProperty(this, 'signal', SIGNAL_PROPERTY);
    if (context !== undefined) this.context = context;
    if (metadata !== undefined) this.metadata = metadata;
    if (run !== undefined) this.run = run;
  }

  static signalOf(options: CallChatOptions): AbortSignal {
    return options.#controller.signal;
  }
}

const SIGNAL_PROPERTY: PropertyDescriptor = {
  get(this: CallChatOptions): AbortSignal {
    return CallChatOptions.signalOf(this);
  },
  enumerable: true,
  configurable: true,
};

function isPromiseLike(value: unknown): value is PromiseLike<string> {
  return typeof (value as PromiseLike<string> | null)?.then === 'function';
}

function asAgentError(agent: Agent, error: unknown): AgentError {
  return error instanceof AgentError && error.agentId === agent.id ? error : new AgentError(agent.id, error);
}

function isPlainAsyncIterable(value: unknown): value is AsyncIterable<string> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value && typeof (value as { subscribe?: unknown }).subscribe !== 'function';
}

/** `from(iterable)`, but pulling the next chunk only once `pace` lets the run go on. */
function pacedFrom(iterable: AsyncIterable<string>, pace: () => PromiseLike<void> | undefined): Observable<string> {
  return new Observable<string>((subscriber) => {
    const iterator = iterable[Symbol.asyncIterator]();
    void (async () => {
      try {
        while (!subscriber.closed) {
          const gate = pace();
          if (gate !== undefined) await gate;
          if (subscriber.closed) return;
          const step = await iterator.next();
          if (step.done === true) {
            subscriber.complete();
            return;
          }
          subscriber.next(step.value);
        }
      } catch (error) {
        subscriber.error(error);
      }
    })();
    return () => {
      // Let the iterator release what it holds (a generator's finally, a network stream).
      Promise.resolve()
        .then(() => iterator.return?.())
        .catch(reportUnhandledError);
    };
  });
}
