import type { RunEvent, RunEventOf } from '@rxagents/core';

/**
 * The message metadata of the assistant message a run becomes: set by the `start` chunk, completed by `finish`.
 *
 * @example
 * ```ts
 * import type { RunMessageMetadata } from '@rxagents/web';
 *
 * const metadata: RunMessageMetadata = { runId: 'r1', name: 'story', success: true, durationMs: 120 };
 * console.log(metadata.success); // true
 * ```
 */
export interface RunMessageMetadata {
  /** The run's id. */
  readonly runId: string;
  /** The run's name (`debate`, `handoff`, yours). */
  readonly name: string;
  /** Whether the run succeeded; set when it ends. */
  readonly success?: boolean;
  /** How long the run took, in ms on its scheduler; set when it ends. */
  readonly durationMs?: number;
}

/**
 * The data parts a run's message carries, by name (`data-handoff` has the `handoff` event as its data, and
 * so on): type `useChat` with `UIMessage<RunMessageMetadata, RunUIDataTypes>`.
 *
 * @remarks
 * `metrics` parts carry the channel's name (`source`) as their id, so each channel's part is replaced by its
 * latest sample. `run` parts carry every other event that is not an agent's text: nested runs' starts and
 * ends, a failed call's `call-error`, a pattern's `message`, `round-end` and `termination`, `usage`,
 * `choreography-event` and `custom` events.
 * `interrupt` parts are the run's requests for input ({@link RunInterruptData}), one per question, its id
 * the interrupt's id, replaced when the question closes; approvals are tool parts, not data parts.
 *
 * @example
 * ```ts
 * import type { RunUIDataTypes } from '@rxagents/web';
 *
 * const handoff: RunUIDataTypes['handoff'] = { type: 'handoff', runId: 'r', callId: 'c', parentCallId: null, at: 0, from: 'intake', to: 'billing', taskId: 't1' };
 * console.log(handoff.to); // billing
 * ```
 */
export interface RunUIDataTypes {
  readonly handoff: RunEventOf<'handoff'>;
  readonly interrupt: RunInterruptData;
  readonly step: RunEventOf<'step'>;
  readonly metrics: RunEventOf<'metrics'>;
  readonly run: RunEvent;
  readonly [name: string]: unknown;
}

/**
 * The data of a `data-interrupt` part: a run's request for input (`askForInput`), as the page shows it
 * and answers it. The part's id is the interrupt's id, so its end replaces it.
 *
 * @remarks
 * `state` is `open` while the run waits, `answered` once answered (`answer` holds the answer), `closed`
 * when it ended unanswered (`errorText` says why, `errorCode` the error's code: `INTERRUPT_TIMEOUT`, an
 * abort, `CALL_INTERRUPTED` when its process stopped; such a question may open again under the same id
 * when a durable run resumes). To answer, a page sends `runId` and `interruptId` to the server, which
 * passes the answer to `answerInterrupt` or its run registry.
 *
 * @example
 * ```ts
 * import type { RunInterruptData } from '@rxagents/web';
 *
 * const open: RunInterruptData = { runId: 'r1', interruptId: 'i1', callId: 'c1', parentCallId: 'a1', question: 'Which city?', schema: { type: 'string' }, state: 'open' };
 * console.log(open.state); // open
 * ```
 */
export interface RunInterruptData {
  /** The run that asked: one half of what answering needs. */
  readonly runId: string;
  /** The interrupt's id (unguessable): the other half. */
  readonly interruptId: string;
  /** The interrupt's node in the run. */
  readonly callId: string;
  /** The node that asked. */
  readonly parentCallId: string | null;
  /** What the person reads. */
  readonly question: string;
  /** The answer's JSON Schema. */
  readonly schema: RunEventOf<'interrupt'>['schema'];
  /** `open`, `answered` or `closed` (ended unanswered). */
  readonly state: 'open' | 'answered' | 'closed';
  /** The answer, once `answered`. */
  readonly answer?: RunEventOf<'interrupt-end'>['answer'];
  /** Why it closed unanswered (as `exposeError` shows the error). */
  readonly errorText?: string;
  /** The code of the error that closed it, when it has one. */
  readonly errorCode?: string;
}

/**
 * The `toolMetadata` of an approval's tool part: the run, the interrupt (also the part's `toolCallId`
 * and `approval.id`) and the interrupt's node in the run.
 *
 * @example
 * ```ts
 * import type { RunApprovalToolMetadata } from '@rxagents/web';
 *
 * const metadata: RunApprovalToolMetadata = { runId: 'r1', interruptId: 'i1', callId: 'c1' };
 * console.log(metadata.interruptId); // i1
 * ```
 */
export type RunApprovalToolMetadata = { readonly runId: string; readonly interruptId: string; readonly callId: string };

/**
 * Where an agent's text part came from: its `providerMetadata.rxagents`. Read it with
 * {@link runTextPartMetadata}, which checks it.
 *
 * @example
 * ```ts
 * import type { RunTextPartMetadata } from '@rxagents/web';
 *
 * const metadata: RunTextPartMetadata = { callId: 'c1', agentId: 'writer', parentCallId: 'r1', status: 'done', durationMs: 40 };
 * console.log(metadata.agentId); // writer
 * ```
 */
export interface RunTextPartMetadata {
  /** The agent call's id (also the text chunks' `id`). */
  readonly callId: string;
  /** The agent that wrote the text. */
  readonly agentId: string;
  /** The node the call belongs to. */
  readonly parentCallId: string | null;
  /**
   * `streaming` while the agent writes, then `done`, or `failed` (the `call-error` is in a `data-run`
   * part), or `cancelled` when the call was cancelled (its `call-error` is an `AbortError`: the run was
   * cancelled, or the stream aborted, while the agent wrote), or `interrupted` when the process running a
   * durable run stopped while the agent wrote (its `call-error` is `CALL_INTERRUPTED`): the resumed run
   * calls it again, as a next attempt with a part of its own (a chat shows the latest attempt's part).
   */
  readonly status: 'streaming' | 'done' | 'failed' | 'cancelled' | 'interrupted';
  /** How long the call took; set when it ends. */
  readonly durationMs?: number;
  /**
   * `true` when the call's whole reply was the reply of a call nested under it, passed on as it was (a
   * routing agent relaying its specialist's answer): that text is in the nested call's part and is not
   * repeated, so this part's text is empty. Set when the call ends.
   */
  readonly relay?: true;
}

/** The `providerMetadata` of a run's text chunks: {@link RunTextPartMetadata} under `rxagents`. */
export type RunTextProviderMetadata = { readonly rxagents: { readonly [key in keyof RunTextPartMetadata]: RunTextPartMetadata[key] } };

/**
 * A chunk of the AI SDK UI message stream protocol (version 1) as {@link toUIMessageStream} writes it: the
 * subset of the `ai` package's `UIMessageChunk` that a run produces, assignable to it. An approval the run
 * asks for is a dynamic tool call (`tool-input-start`, `tool-input-available`, `tool-approval-request`,
 * then `tool-output-available`, `tool-output-denied` or `tool-output-error`); a request for input a
 * `data-interrupt` part.
 *
 * @example
 * ```ts
 * import type { RunUIMessageChunk } from '@rxagents/web';
 *
 * const chunk: RunUIMessageChunk = { type: 'text-delta', id: 'c1', delta: 'Hello' };
 * console.log(chunk.type); // text-delta
 * ```
 */
export type RunUIMessageChunk =
  | { readonly type: 'start'; readonly messageId?: string; readonly messageMetadata?: RunMessageMetadata }
  | { readonly type: 'text-start'; readonly id: string; readonly providerMetadata: RunTextProviderMetadata }
  | { readonly type: 'text-delta'; readonly id: string; readonly delta: string }
  | { readonly type: 'text-end'; readonly id: string; readonly providerMetadata: RunTextProviderMetadata }
  | { readonly type: 'data-handoff'; readonly data: RunEventOf<'handoff'> }
  | { readonly type: 'data-step'; readonly data: RunEventOf<'step'> }
  | { readonly type: 'data-metrics'; readonly id: string; readonly data: RunEventOf<'metrics'> }
  | { readonly type: 'data-run'; readonly data: RunEvent }
  | { readonly type: 'data-interrupt'; readonly id: string; readonly data: RunInterruptData }
  | {
      readonly type: 'tool-input-start';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly dynamic: true;
      readonly title: string;
      readonly toolMetadata: RunApprovalToolMetadata;
    }
  | {
      readonly type: 'tool-input-available';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly input: unknown;
      readonly dynamic: true;
      readonly title: string;
      readonly toolMetadata: RunApprovalToolMetadata;
    }
  | { readonly type: 'tool-approval-request'; readonly toolCallId: string; readonly approvalId: string }
  | { readonly type: 'tool-output-available'; readonly toolCallId: string; readonly output: unknown; readonly dynamic: true }
  | { readonly type: 'tool-output-denied'; readonly toolCallId: string }
  | { readonly type: 'tool-output-error'; readonly toolCallId: string; readonly errorText: string; readonly dynamic: true }
  | { readonly type: 'error'; readonly errorText: string }
  | { readonly type: 'abort'; readonly reason?: string }
  | { readonly type: 'finish'; readonly finishReason: 'stop' | 'error' | 'tool-calls'; readonly messageMetadata?: RunMessageMetadata };
