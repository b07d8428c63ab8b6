import { asyncScheduler, defer, from, Observable, type SchedulerLike, type Subscriber, type Subscription, switchMap, takeWhile } from 'rxjs';
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
  if (typeof input !== 'string') {
    throw new ConfigError(agentName(agent), [{ path: 'input', rule: 'must be a string', received: input }]);
  }
  checkOptions(options);
  return options.run === undefined ? agentCall(agent, input, options, undefined) : pacedCall(agent, input, options, options.run);
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
  const { timeout, scheduler = asyncScheduler, context, metadata } = options;
  const limited = timeout !== undefined && timeout !== Infinity;
  return new Observable<string>((subscriber) => {
    const call = new Call(subscriber, run === undefined ? undefined : new CallTrace(run, agent.id, input));
    // No deadline is Infinity, so `scheduler.now() >= deadline` is never true without a timeout.
    const deadline = limited ? scheduler.now() + (timeout as number) : Infinity;
    if (limited) call.timer = scheduleDelay(scheduler, timeout as number, () => call.fail(new AgentTimeoutError(agent.id, timeout as number)));

    let source: Observable<string>;
    try {
      const answer = agent.chat(input, chatOptions(call.controller, context, metadata, call.trace?.child));
      // A synchronous iterable or Observable can settle the call, or lose its caller, while `subscribe`
      // still runs (before `inner` exists); `takeWhile` then closes the agent's subscriber so it stops
      // producing at once, and cuts off one that streams past its deadline without yielding. A Promise
      // never emits synchronously and skips the extra operator.
      const pace = run?.pace;
      source = isPromiseLike(answer)
        ? from(answer)
        : (pace !== undefined && isPlainAsyncIterable(answer) ? pacedFrom(answer, pace) : from(answer)).pipe(
            takeWhile(() => !call.settled && !subscriber.closed && !(limited && scheduler.now() >= deadline)),
          );
    } catch (error) {
      call.settle();
      const failure = asAgentError(agent, error);
      call.trace?.fail(failure);
      subscriber.error(failure);
      return;
    }

    call.inner = source.subscribe({
      next: (chunk) => {
        if (call.settled || call.controller.isAborted) return;
        if (limited && scheduler.now() >= deadline) call.fail(new AgentTimeoutError(agent.id, timeout as number));
        else if (typeof chunk !== 'string') call.fail(new AgentError(agent.id, new TypeError(`chat emitted a ${typeof chunk} chunk; chunks must be strings`)));
        else {
          call.trace?.delta(chunk);
          subscriber.next(chunk);
        }
      },
      error: (error: unknown) => {
        if (call.settled) return;
        call.settle();
        const failure = asAgentError(agent, error);
        call.trace?.fail(failure);
        subscriber.error(failure);
      },
      complete: () => {
        // Closed: `takeWhile` cut the agent off because the caller left; the teardown aborts it.
        if (call.settled || subscriber.closed) return;
        // `takeWhile` also cuts off a synchronous agent that streamed past its deadline.
        if (limited && scheduler.now() >= deadline) {
          call.fail(new AgentTimeoutError(agent.id, timeout as number));
          return;
        }
        call.settle();
        call.trace?.end();
        subscriber.complete();
      },
    });

    return () => call.teardown();
  });
}

/** One agent call's state: whether it settled, its timer, the agent's subscription and its abort. */
class Call {
  readonly controller = new LazyAbort();
  settled = false;
  timer: Subscription | undefined = undefined;
  inner: Subscription | undefined = undefined;

  constructor(
    private readonly subscriber: Subscriber<string>,
    readonly trace: CallTrace | undefined,
  ) {}

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

  // The agent's teardown is user code: if it throws, the caller still gets the real outcome.
  private stopAgent(): void {
    try {
      this.inner?.unsubscribe();
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

// The signal is an own, enumerable getter, so `{ ...options }` in a wrapping agent still carries it.
function chatOptions(controller: LazyAbort, context: AgentCallOptions['context'], metadata: AgentCallOptions['metadata'], run: RunContext | undefined): ChatOptions {
  const options: { readonly signal: AbortSignal; context?: readonly Message[]; metadata?: Readonly<Record<string, unknown>>; run?: RunContext } = {
    get signal() {
      return controller.signal;
    },
  };
  if (context !== undefined) options.context = context;
  if (metadata !== undefined) options.metadata = metadata;
  if (run !== undefined) options.run = run;
  return options;
}

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
