import type { ObservableInput } from 'rxjs';
import type { Message, ToolCall } from '@rxagents/core';

/** A function tool offered to a model, in the OpenAI function-calling shape. */
export interface ToolDefinition {
  readonly type: 'function';
  readonly function: {
    /** The tool's name, for example `transfer_to_billing`. */
    readonly name: string;
    /** What the model reads to decide when to call it. */
    readonly description: string;
    /** JSON Schema of the arguments object. */
    readonly parameters: Readonly<Record<string, unknown>>;
  };
}

/** What a {@link ToolCallingModel} is asked: the conversation so far and the tools it may call. */
export interface ToolCallingRequest {
  readonly messages: readonly Message[];
  readonly tools: readonly ToolDefinition[];
  /** Aborts when the caller no longer wants the answer. */
  readonly signal?: AbortSignal;
}

/** A model's answer: text, tool calls, or both. */
export interface ToolCallingResponse {
  readonly content?: string;
  readonly toolCalls?: readonly ToolCall[];
}

/**
 * The model contract a routing agent uses to let an LLM pick a handoff tool.
 *
 * @remarks
 * Any function from a request to an `ObservableInput` of one response fits: a Promise from an SDK
 * call, an Observable, a scripted stub in tests. `@rxagents/ai-sdk` implements it over the Vercel AI SDK.
 *
 * @example
 * ```ts
 * import type { ToolCallingModel } from '@rxagents/handoff';
 *
 * // A stand-in model that always transfers to the first tool offered.
 * const firstTool: ToolCallingModel = async ({ tools }) => ({
 *   toolCalls: tools.slice(0, 1).map((tool, index) => ({ id: `call-${index}`, name: tool.function.name, arguments: '{}' })),
 * });
 * ```
 */
export type ToolCallingModel = (request: ToolCallingRequest) => ObservableInput<ToolCallingResponse>;
