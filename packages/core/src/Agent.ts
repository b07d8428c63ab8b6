import type { ObservableInput } from 'rxjs';
import type { RunContext } from './events/RunContext';
import type { Message } from './Message';
import type { TraceContext } from './TraceContext';

/**
 * What an agent receives with every `chat` call.
 *
 * @remarks
 * `signal` aborts when the caller unsubscribes or a timeout passes: stop work and release resources
 * when it fires. `context` is the conversation history the caller chose to share (a handoff's context
 * policy decides it); agents are never mutated to carry it.
 *
 * @example
 * ```ts
 * import { defineAgent, type ChatOptions } from '@rxagents/core';
 *
 * const summariser = defineAgent('summariser', async (input: string, { signal, context = [] }: ChatOptions) => {
 *   signal.throwIfAborted();
 *   return `Summary of ${context.length} earlier messages and "${input}"`;
 * });
 * ```
 */
export interface ChatOptions {
  /** Aborts when the work is no longer wanted (unsubscription, timeout, an outer abort). */
  readonly signal: AbortSignal;
  /** Prior messages the caller shares with the agent, oldest first. */
  readonly context?: readonly Message[];
  /** Free-form facts about the call (task id, handoff chain, ...). */
  readonly metadata?: Readonly<Record<string, unknown>>;
  /**
   * The run this call belongs to, when someone is watching it. Pass it on (`invoke$(other, text, { run })`,
   * a pattern's or a handoff's `run` option) and what you call appears in the run's events under this
   * call; emit your own `custom` events with {@link emitCustom}. Ignore it and nothing changes.
   */
  readonly run?: RunContext;
  /**
   * Set on every call of a durable run (one started with a store): a key naming this call's place in
   * the run, `<runId>:<place key>` (for example `support-42:run/1`), the same on every attempt of the call.
   * A call that was in flight when its process stopped runs again when the run resumes (at least once per
   * call), so give this key to whatever the call changes outside the run (a payment, an e-mail, a ticket)
   * and let that side deduplicate: the second attempt then does no second side effect.
   */
  readonly idempotencyKey?: string;
  /**
   * Set when the call came from another process that traces its runs (a `serveAgent` worker sets it from the
   * caller's call entry): the W3C trace context of the caller's span for this call. A tracing wrapper (such as
   * `@rxagents/otel`'s `tracedAgent`) starts the call's spans under it, so they join the caller's trace.
   */
  readonly traceContext?: TraceContext;
}

/**
 * A message delivered to an agent outside `chat`, such as a `HANDOFF_REQUEST`.
 *
 * @example
 * ```ts
 * import type { AgentMessage } from '@rxagents/core';
 *
 * const request: AgentMessage = {
 *   type: 'HANDOFF_REQUEST',
 *   from: 'intake',
 *   to: 'billing',
 *   payload: { taskId: 'ticket-7', invoiceId: '42' },
 * };
 * ```
 */
export interface AgentMessage {
  /** The message kind, for example `HANDOFF_REQUEST`. */
  readonly type: string;
  /** The sending agent's id. */
  readonly from: string;
  /** The receiving agent's id. */
  readonly to: string;
  /** The message body. */
  readonly payload: Readonly<Record<string, unknown>>;
}

/**
 * The contract every agent fulfils: an id and a `chat` method.
 *
 * @remarks
 * The toolkit does not own an LLM: an agent is yours. `chat` may return a Promise of the whole reply,
 * or an Observable or AsyncIterable of chunks (streamed tokens); the reply is the concatenation of all
 * chunks. It may also throw. Call agents through {@link stream}, {@link invoke$} or {@link invoke}, which normalise
 * these forms, wire cancellation to `options.signal` and wrap failures in {@link AgentError}.
 *
 * @example
 * ```ts
 * import type { Agent } from '@rxagents/core';
 *
 * const echo: Agent = {
 *   id: 'echo',
 *   name: 'Echo',
 *   chat: async (input) => `You said: ${input}`,
 * };
 * ```
 */
export interface Agent {
  /** Unique id, used in every result and error. */
  readonly id: string;
  /** Human-readable name (used, for example, in generated handoff tool names). */
  readonly name?: string;
  /** The agent's role, woven into generated handoff descriptions. */
  readonly role?: string;
  /** The agent's goal, woven into generated handoff descriptions. */
  readonly goal?: string;
  /** Answers `input`: a Promise of the reply, or an Observable/AsyncIterable of its chunks. */
  chat(input: string, options: ChatOptions): ObservableInput<string>;
  /** Receives out-of-band messages such as a `HANDOFF_REQUEST`. Optional. */
  receive?(message: AgentMessage): void;
}
