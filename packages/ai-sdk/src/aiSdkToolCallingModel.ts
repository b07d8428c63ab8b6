import { parseConfig, configRules, type ToolCall } from '@rxagents/core';
import type { ToolCallingModel, ToolCallingRequest, ToolCallingResponse } from '@rxagents/handoff';
import type { LanguageModel } from 'ai';
import { catchError, defer, map, type Observable, reduce, Subject, tap, throwError } from 'rxjs';
import { z } from 'zod';
import { aiSdkSettingsRule, type AiSdkSettings } from './AiSdkSettings';
import { toAiSdkUsage, type AiSdkUsage } from './AiSdkUsage';
import { ModelCallError } from './errors/ModelCallError';
import { languageModelRule } from './languageModelRule';
import { providerFailure } from './providerFailure';
import { streamModelParts, type ModelStreamPart } from './streamModelParts';
import { toAiSdkTools } from './toAiSdkTools';
import { toModelMessages } from './toModelMessages';

/** Options of {@link aiSdkToolCallingModel}. */
export interface AiSdkToolCallingModelOptions {
  /** The AI SDK language model; it must support tool calling. */
  readonly model: LanguageModel;
  /** A system prompt put before the request's messages. */
  readonly system?: string;
  /** AI SDK call settings (temperature, maxRetries, providerOptions, ...). */
  readonly settings?: AiSdkSettings;
  /** Called with each call's usage; a throwing callback is reported by RxJS, it never fails the call. */
  readonly onUsage?: (usage: AiSdkUsage) => void;
}

/** The zod schema of {@link AiSdkToolCallingModelOptions}. */
export const AiSdkToolCallingModelOptionsSchema = z.strictObject({
  model: languageModelRule(),
  system: z.string({ error: 'must be a string' }).optional(),
  settings: aiSdkSettingsRule().optional(),
  onUsage: configRules.function<(usage: AiSdkUsage) => void>().optional(),
});

/** A {@link ToolCallingModel} backed by an AI SDK model, with its token usage observable. */
export interface AiSdkToolCallingModel extends ToolCallingModel {
  /** Every finished call's usage, hot. Never completes. */
  readonly usage$: Observable<AiSdkUsage>;
  /** The usage of the last call that finished, or `undefined` before the first. */
  readonly lastUsage: AiSdkUsage | undefined;
}

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
 * for 429 and 5xx); an abort errors with the signal's reason. Usage is on `usage$`, `lastUsage` and
 * `onUsage`, as for {@link aiSdkAgent}.
 *
 * @throws {@link ConfigError} when an option is invalid.
 *
 * @example
 * ```ts
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
  const { model, system, settings } = parsed;
  const usage = new Subject<AiSdkUsage>();
  let lastUsage: AiSdkUsage | undefined;
  if (parsed.onUsage !== undefined) usage.subscribe(parsed.onUsage);

  const call = (request: ToolCallingRequest): Observable<ToolCallingResponse> =>
    defer(() =>
      streamModelParts({
        model,
        ...(system === undefined ? {} : { system }),
        messages: toModelMessages(request.messages),
        ...(request.tools.length === 0 ? {} : { tools: toAiSdkTools(request.tools) }),
        ...(settings === undefined ? {} : { settings }),
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      }),
    ).pipe(
      tap((part) => {
        if (part.type !== 'finish') return;
        lastUsage = toAiSdkUsage(part.totalUsage, part.finishReason);
        usage.next(lastUsage);
      }),
      reduce(collect, { text: '', toolCalls: [] as ToolCall[] }),
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
      arguments: raw ? (part.input as string) : JSON.stringify(part.input ?? {}),
    });
  }
  return response;
}

function toModelCallError(error: unknown): unknown {
  if (error instanceof ModelCallError) return error;
  const { status, retryable } = providerFailure(error);
  return new ModelCallError(error, { retryable, ...(status === undefined ? {} : { status }) });
}
