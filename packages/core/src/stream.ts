import { asyncScheduler, from, Observable, type ObservableInput, type SchedulerLike, type Subscriber, takeWhile, type TeardownLogic } from 'rxjs';
import * as z from 'zod';
import type { Agent, ChatOptions } from './Agent';
import * as configRules from './configRules';
import { scheduleDelay } from './delay';
import { AgentError } from './errors/AgentError';
import { AgentTimeoutError } from './errors/AgentTimeoutError';
import { ConfigError } from './errors/ConfigError';
import { Call } from './internal/Call';
import { CallChatOptions } from './internal/CallChatOptions';
import { CallTrace } from './internal/CallTrace';
import { MAX_DELAY_MS } from './limits';
import type { Message } from './Message';
import { parseConfig } from './parseConfig';
import { reportUnhandledError } from './reportUnhandledError';
import type { RunContext } from './events/RunContext';
import type { LiveCallPlace } from './events/RunJournal';
import { whenRoom } from './events/whenRoom';

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
 * @throws {@link ConfigError} synchronously when `agent` is not an agent (an object with a non-blank `id`
 *   and a `chat` function), `input` is not a string, or an option is unknown or invalid.
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

/** Refuses what {@link stream} refuses: an agent without a non-blank id and a `chat` function, an input that is not a string, unknown or invalid options. */
export function checkCall(agent: Agent, input: string, options: AgentCallOptions): void {
  if (!isAgent(agent)) {
    throw new ConfigError('agent call', [{ path: 'agent', rule: 'must be an agent (an object with a non-blank id and a chat function)', received: agent }]);
  }
  if (typeof input !== 'string') {
    throw new ConfigError(agentName(agent), [{ path: 'input', rule: 'must be a string', received: input }]);
  }
  checkOptions(options);
}

/** A paced run waits for its reader before it starts another call: see {@link whenRoom}. */
function pacedCall(agent: Agent, input: string, options: AgentCallOptions, run: RunContext): Observable<string> {
  const { pace } = run;
  if (pace === undefined) return agentCall(agent, input, options, run);
  return new Observable<string>((subscriber) => {
    whenRoom(
      pace,
      subscriber,
      () => agentCall(agent, input, options, run).subscribe(subscriber),
      (error) => subscriber.error(error),
    );
  });
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
  // A durable run answers a recorded call from its journal (the agent is not called) and names a live one by its place.
  const journal = run?.journal;
  let place: LiveCallPlace | undefined;
  if (journal !== undefined) {
    place = journal.host.enterCall(run as RunContext, journal, agent.id, input, subscriber);
    if (place === undefined) return undefined;
  }
  const { timeout, scheduler = asyncScheduler, context, metadata } = options;
  const limited = timeout !== undefined && timeout !== Infinity;
  // No deadline is Infinity, so `scheduler.now() >= deadline` is never true without a timeout.
  const deadline = limited ? scheduler.now() + (timeout as number) : Infinity;
  const call = new Call(subscriber, agent.id, run === undefined ? undefined : new CallTrace(run, agent.id, input, place), scheduler, limited ? (timeout as number) : undefined, deadline);
  if (limited) call.timer = scheduleDelay(scheduler, timeout as number, () => call.fail(new AgentTimeoutError(agent.id, timeout as number)));

  let answer: ObservableInput<string>;
  let source: Observable<string> | undefined;
  try {
    answer = agent.chat(input, new CallChatOptions(call.controller, context, metadata, call.trace?.child, place?.idempotencyKey));
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
  return `call to agent '${agent.id}'`;
}

// Every call comes through here: a character test before the whitespace RegExp.
function isAgent(value: unknown): value is Agent {
  if (typeof value !== 'object' || value === null || typeof (value as Agent).chat !== 'function') return false;
  const { id } = value as Agent;
  if (typeof id !== 'string' || id.length === 0) return false;
  const first = id.charCodeAt(0);
  return (first > 32 && first < 127) || /\S/.test(id);
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
          // Asked again after each wait: other calls woken by the same room may have filled it.
          for (let gate = pace(); gate !== undefined; gate = pace()) {
            await gate;
            if (subscriber.closed) return;
          }
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
