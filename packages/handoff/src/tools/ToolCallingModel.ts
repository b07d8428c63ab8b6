import type { ObservableInput } from 'rxjs';
import type { Message, RunContext, ToolCall } from '@rxagents/core';

/**
 * A function tool offered to a model, in the OpenAI function-calling shape.
 *
 * @remarks
 * {@link Handoff.toolDefinition} builds one per handoff (`transfer_to_*`, parameters from its
 * `inputSchema`); a routing agent offers them to its {@link ToolCallingModel} in
 * {@link ToolCallingRequest.tools}.
 *
 * @example
 * ```ts
 * import type { ToolDefinition } from '@rxagents/handoff';
 *
 * const transferToRefunds: ToolDefinition = {
 *   type: 'function',
 *   function: {
 *     name: 'transfer_to_refunds',
 *     description: 'Hand the conversation to the refunds team',
 *     parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
 *   },
 * };
 * ```
 */
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

/**
 * What a {@link ToolCallingModel} is asked: the conversation so far and the tools it may call.
 *
 * @remarks
 * A routing agent sends its instructions as a `system` message, then the shared history, then the
 * input as a `user` message; `tools` holds one `transfer_to_*` tool per handoff. It names itself in
 * `agentId`, and in a watched run passes its call as `run`, for the model's token usage.
 *
 * @example
 * ```ts
 * import { defineAgent, lastValue, invoke$ } from '@rxagents/core';
 * import { routingAgent, type ToolCallingRequest } from '@rxagents/handoff';
 *
 * const model = async ({ messages, tools }: ToolCallingRequest) => {
 *   console.log(messages.map((m) => m.role), tools.map((t) => t.function.name)); // [ 'system', 'user' ] [ 'transfer_to_billing' ]
 *   return { toolCalls: [{ id: 'call-1', name: 'transfer_to_billing', arguments: '{}' }] };
 * };
 * const billing = defineAgent('billing', async () => 'Refund issued.');
 * const assistant = routingAgent({ id: 'assistant', instructions: 'Route billing questions', model, handoffs: [billing] });
 * console.log(await lastValue(invoke$(assistant, 'Refund please'))); // Refund issued.
 * ```
 */
export interface ToolCallingRequest {
  readonly messages: readonly Message[];
  readonly tools: readonly ToolDefinition[];
  /** Aborts when the caller no longer wants the answer. */
  readonly signal?: AbortSignal;
  /** The id of the agent asking: a routing agent gives its own. */
  readonly agentId?: string;
  /**
   * The asking agent's call, in a watched run: a model adapter reports the tokens it spent into it with
   * `emitUsage` (as `agentId`), so the run's usage counts the routing decisions too. `undefined` when
   * nobody watches; a model that ignores it still works.
   */
  readonly run?: RunContext;
}

/**
 * A model's answer: text, tool calls, or both.
 *
 * @remarks
 * A routing agent executes the first tool call that names one of its handoffs, passing its
 * `arguments`; a response without tool calls is the routing agent's own reply (`content`).
 *
 * @example
 * ```ts
 * import { defineAgent, lastValue, invoke$ } from '@rxagents/core';
 * import { routingAgent, type ToolCallingModel, type ToolCallingResponse } from '@rxagents/handoff';
 *
 * const answer: ToolCallingResponse = { content: 'We are open 9 to 5.' };
 * const transfer: ToolCallingResponse = { toolCalls: [{ id: 'call-1', name: 'transfer_to_billing', arguments: '{}' }] };
 * const model: ToolCallingModel = async ({ messages }) => (messages.at(-1)?.content.includes('refund') ? transfer : answer);
 * const assistant = routingAgent({ id: 'assistant', model, handoffs: [defineAgent('billing', async () => 'Refund issued.')] });
 * console.log(await lastValue(invoke$(assistant, 'When are you open?'))); // We are open 9 to 5.
 * ```
 */
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
