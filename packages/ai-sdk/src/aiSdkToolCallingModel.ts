import { ConfigError, configRules, emitUsage, parseConfig, type ToolCall } from '@rxagents/core';
import type { ToolCallingModel, ToolCallingRequest, ToolCallingResponse } from '@rxagents/handoff';
import type { LanguageModel } from 'ai';
import { catchError, defer, map, type Observable, reduce, Subject, tap, throwError } from 'rxjs';
import { z } from 'zod';
import { aiSdkSettingsRule, toStreamTextSettings, type AiSdkSettings } from './AiSdkSettings';
import { toAiSdkUsage, type AiSdkUsage } from './AiSdkUsage';
import { ModelCallError } from './errors/ModelCallError';
import { languageModelRule } from './languageModelRule';
import { providerFailure } from './providerFailure';
import { streamModelParts, type ModelStreamPart } from './streamModelParts';
import { toAiSdkTools } from './toAiSdkTools';
import { toModelMessages } from './toModelMessages';

/**
 * Options of {@link aiSdkToolCallingModel}.
 *
 * @remarks
 * Only `model` is required; validated by {@link AiSdkToolCallingModelOptionsSchema}. A temperature of
 * 0 makes the routing choice as repeatable as the provider allows.
 *
 * @example
 * ```ts
 * import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
 * import { aiSdkToolCallingModel, type AiSdkToolCallingModelOptions } from '@rxagents/ai-sdk';
 *
 * const local = createOpenAICompatible({ name: 'local', baseURL: 'http://127.0.0.1:11434/v1' });
 * const options: AiSdkToolCallingModelOptions = {
 *   model: local('qwen2.5'),
 *   system: 'Hand the customer to the team that fits; answer greetings yourself.',
 *   settings: { temperature: 0, maxRetries: 0 },
 *   onUsage: (usage) => console.log(usage.finishReason, usage.totalTokens),
 * };
 * const router = aiSdkToolCallingModel(options);
 * ```
 */
export interface AiSdkToolCallingModelOptions {
  /** The AI SDK language model; it must support tool calling. */
  readonly model: LanguageModel;
  /** A system prompt put before the request's messages. */
  readonly system?: string;
  /** AI SDK call settings (temperature, maxRetries, providerOptions, ...). */
  readonly settings?: AiSdkSettings;
  /** Called with each call's usage; if it throws, the call fails with a {@link ModelCallError} whose cause is the thrown error. */
  readonly onUsage?: (usage: AiSdkUsage) => void;
}

/**
 * The zod schema of {@link AiSdkToolCallingModelOptions}.
 *
 * @remarks
 * Strict: unknown keys are rejected; `model` must be a provider's model object or a model id string,
 * `settings` must satisfy `AiSdkSettingsSchema` and `onUsage` must be a function.
 *
 * @example
 * ```ts
 * import { AiSdkToolCallingModelOptionsSchema } from '@rxagents/ai-sdk';
 *
 * const result = AiSdkToolCallingModelOptionsSchema.safeParse({ model: 'openai/gpt-4o-mini', settings: 'fast' });
 * if (!result.success) console.log(result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
 * // [ 'settings: must be an object of AI SDK call settings' ]
 * ```
 */
export const AiSdkToolCallingModelOptionsSchema = z.strictObject({
  model: languageModelRule(),
  system: z.string({ error: 'must be a string' }).optional(),
  settings: aiSdkSettingsRule().optional(),
  onUsage: configRules.function<(usage: AiSdkUsage) => void>().optional(),
});

/**
 * A {@link ToolCallingModel} backed by an AI SDK model, with its token usage observable.
 *
 * @remarks
 * What {@link aiSdkToolCallingModel} returns: a function you pass as a routing agent's `model`, which
 * also carries `usage$` and `lastUsage` for the routing calls' tokens.
 *
 * @example
 * ```ts
 * // no-run: needs a language model (an OpenAI-compatible server or a provider account)
 * import { defineAgent, lastValue, invoke$ } from '@rxagents/core';
 * import { aiSdkToolCallingModel, type AiSdkToolCallingModel, type AiSdkToolCallingModelOptions } from '@rxagents/ai-sdk';
 * import { routingAgent } from '@rxagents/handoff';
 *
 * declare const model: AiSdkToolCallingModelOptions['model'];
 *
 * const router: AiSdkToolCallingModel = aiSdkToolCallingModel({ model });
 * const billing = defineAgent({ id: 'billing', name: 'Billing', chat: async () => 'Your invoice is paid.' });
 * const assistant = routingAgent({ id: 'assistant', instructions: 'Route billing questions.', model: router, handoffs: [billing] });
 * console.log(await lastValue(invoke$(assistant, 'Was my invoice paid?'))); // Your invoice is paid.
 * console.log(router.lastUsage?.finishReason); // tool-calls
 * ```
 */
export interface AiSdkToolCallingModel extends ToolCallingModel {
  /** Every finished call's usage, hot. Never completes. */
  readonly usage$: Observable<AiSdkUsage>;
  /** The usage of the last call that finished, or `undefined` before the first. */
  readonly lastUsage: AiSdkUsage | undefined;
}

/** The agent a usage event names when the request does not say who asked. */
const MODEL_AGENT_ID = 'tool-calling-model';

/**
 * A {@link ToolCallingModel} over the Vercel AI SDK, so a routing agent lets the model pick a `transfer_to_*` tool.
 *
 * @remarks
 * Each subscription makes one `streamText` call: `system`, then the request's messages (see
 * {@link toModelMessages}), the request's tools as AI SDK tools without `execute` (see
 * {@link toAiSdkTools}) and the request's `signal` as the abort signal. It emits one
 * {@link ToolCallingResponse} when the model finishes: `content` with the text (when there is any) and
 * `toolCalls` as `{ id, name, arguments }`, `arguments` being the call's input as a JSON string (the
 * model's raw text when it is not valid JSON, so the handoff's `inputSchema` can reject it). The SDK does
 * not validate arguments. A provider failure errors with a {@link ModelCallError} (HTTP `status`, retryable
 * for 429 and 5xx); an abort errors with the signal's reason; two tools of the same name error with a
 * `ConfigError` before the model is called. Usage is on `usage$`, `lastUsage` and
 * `onUsage`, as for {@link aiSdkAgent} (a throwing `onUsage` fails the call with a `ModelCallError`),
 * and, when the request carries a `run` (a routing agent's call in a watched run), a `usage` event in that
 * run under the request's `agentId` (`tool-calling-model` when it names nobody).
 *
 * @throws {@link @rxagents/core!ConfigError | ConfigError} when an option is invalid.
 *
 * @example
 * ```ts
 * // no-run: needs a language model (an OpenAI-compatible server or a provider account)
 * import { aiSdkToolCallingModel, type AiSdkToolCallingModelOptions } from '@rxagents/ai-sdk';
 * import { from, lastValueFrom } from 'rxjs';
 *
 * declare const model: AiSdkToolCallingModelOptions['model']; // any AI SDK model that can call tools
 *
 * const router = aiSdkToolCallingModel({ model, system: 'Route the customer to the right team.' });
 * const response = await lastValueFrom(
 *   from(
 *     router({
 *       messages: [{ role: 'user', content: 'A question about my invoice' }],
 *       tools: [
 *         {
 *           type: 'function',
 *           function: { name: 'transfer_to_billing', description: 'Invoices and payments', parameters: { type: 'object', properties: {} } },
 *         },
 *       ],
 *     }),
 *   ),
 * );
 * console.log(response.toolCalls); // [ { id: 'call_…', name: 'transfer_to_billing', arguments: '{}' } ]
 * ```
 */
export function aiSdkToolCallingModel(options: AiSdkToolCallingModelOptions): AiSdkToolCallingModel {
  const parsed = parseConfig(AiSdkToolCallingModelOptionsSchema, options, 'aiSdkToolCallingModel options');
  const { model, system } = parsed;
  const settings = parsed.settings === undefined ? undefined : toStreamTextSettings(parsed.settings);
  const usage = new Subject<AiSdkUsage>();
  let lastUsage: AiSdkUsage | undefined;
  const { onUsage } = parsed;

  const call = (request: ToolCallingRequest): Observable<ToolCallingResponse> =>
    defer(() =>
      streamModelParts({
        model,
        ...(system === undefined ? {} : { system }),
        messages: toModelMessages(request.messages),
        ...(request.tools.length === 0 ? {} : { tools: toAiSdkTools(request.tools) }),
        ...(settings === undefined ? {} : { settings }),
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      }).pipe(
        tap((part) => {
          if (part.type !== 'finish') return;
          lastUsage = toAiSdkUsage(part.totalUsage, part.finishReason);
          usage.next(lastUsage);
          // In a watched run, the routing call's tokens count with every other call's.
          if (request.run !== undefined) emitUsage(request.run, { ...lastUsage, agentId: request.agentId ?? MODEL_AGENT_ID });
          // Thrown here, it fails this call (a ModelCallError) instead of escaping unhandled.
          onUsage?.(lastUsage);
        }),
        // Inside `defer`, so each subscription collects into its own seed: a retry must not inherit
        // the text and tool calls of the attempt that failed.
        reduce(collect, { text: '', toolCalls: [] as ToolCall[] }),
      ),
    ).pipe(
      map(({ text, toolCalls }): ToolCallingResponse => ({
        ...(text === '' ? {} : { content: text }),
        ...(toolCalls.length === 0 ? {} : { toolCalls }),
      })),
      catchError((error: unknown) => throwError(() => (request.signal?.aborted ? request.signal.reason : toModelCallError(error)))),
    );

  Object.defineProperties(call, {
    usage$: { value: usage.asObservable(), enumerable: true },
    lastUsage: { get: () => lastUsage, enumerable: true },
  });
  return Object.freeze(call) as AiSdkToolCallingModel;
}

function collect(response: { text: string; toolCalls: ToolCall[] }, part: ModelStreamPart): { text: string; toolCalls: ToolCall[] } {
  if (part.type === 'text-delta') response.text += part.text;
  else if (part.type === 'tool-call') {
    const raw = part.invalid === true && typeof part.input === 'string';
    response.toolCalls.push({
      id: part.toolCallId,
      name: part.toolName,
      // No input at all is no arguments (`{}`); anything the model did send, JSON `null` included, is
      // handed on as it is, for the handoff's input schema to judge.
      arguments: raw ? (part.input as string) : part.input === undefined ? '{}' : JSON.stringify(part.input),
    });
  }
  return response;
}

function toModelCallError(error: unknown): unknown {
  // A request the model was never called with (two tools of one name) is the caller's mistake, not the model's.
  if (error instanceof ModelCallError || error instanceof ConfigError) return error;
  const { status, retryable } = providerFailure(error);
  return new ModelCallError(error, { retryable, ...(status === undefined ? {} : { status }) });
}
