import { configRules, emitUsage, parseConfig, type Agent, type ChatOptions } from '@rxagents/core';
import type { LanguageModel, TextStreamPart, ToolSet } from 'ai';
import { catchError, filter, map, type Observable, Subject, tap, throwError } from 'rxjs';
import { z } from 'zod';
import { aiSdkSettingsRule, toStreamTextSettings, type AiSdkSettings } from './AiSdkSettings';
import { toAiSdkUsage, type AiSdkUsageReport } from './AiSdkUsage';
import { languageModelRule } from './languageModelRule';
import { streamModelParts, type ModelStreamPart } from './streamModelParts';
import { toAgentError } from './toAgentError';
import { toModelMessages } from './toModelMessages';
import { checkChatCall } from './internal/checkChatCall';

/**
 * Options of {@link aiSdkAgent}.
 *
 * @remarks
 * `id` and `model` are required; validated by {@link AiSdkAgentOptionsSchema}. Call settings go in
 * `settings`, never at the top level (an unknown option is a `ConfigError`).
 *
 * @example
 * ```ts
 * import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
 * import { aiSdkAgent, type AiSdkAgentOptions } from '@rxagents/ai-sdk';
 *
 * const local = createOpenAICompatible({ name: 'local', baseURL: 'http://127.0.0.1:11434/v1', includeUsage: true });
 * const options: AiSdkAgentOptions = {
 *   id: 'support',
 *   role: 'Support specialist',
 *   model: local('llama3.1'),
 *   system: 'Answer in at most three sentences.',
 *   settings: { temperature: 0.3, maxOutputTokens: 300, maxRetries: 0 },
 *   onUsage: (report) => console.log(report.agentId, report.totalTokens),
 * };
 * const support = aiSdkAgent(options);
 * ```
 */
export interface AiSdkAgentOptions {
  /** Unique id, used in every result and error. */
  readonly id: string;
  readonly name?: string;
  readonly role?: string;
  readonly goal?: string;
  /** The AI SDK language model, for example `openai('gpt-4o-mini')` or `createOpenAICompatible(...)('llama3')`. */
  readonly model: LanguageModel;
  /** The system prompt of every call. */
  readonly system?: string;
  /** AI SDK call settings (temperature, maxOutputTokens, maxRetries, providerOptions, ...). */
  readonly settings?: AiSdkSettings;
  /** Called with each reply's usage, before the reply completes; if it throws, the reply fails with an `AgentError` whose cause is the thrown error. */
  readonly onUsage?: (report: AiSdkUsageReport) => void;
}

/**
 * The zod schema of {@link AiSdkAgentOptions}.
 *
 * @remarks
 * Strict: unknown keys are rejected. `id` must not be blank; `model` must be a provider's model object
 * (one with `doStream`) or a non-empty model id string; `settings` must satisfy `AiSdkSettingsSchema`
 * (strict too, timeouts within what a timer can wait). Use it to check options read from a
 * config file before building the agent.
 *
 * @example
 * ```ts
 * import { AiSdkAgentOptionsSchema } from '@rxagents/ai-sdk';
 *
 * const fromFile: unknown = JSON.parse('{ "id": "support", "model": "openai/gpt-4o-mini", "temperature": 0.2 }');
 * const result = AiSdkAgentOptionsSchema.safeParse(fromFile);
 * if (!result.success) console.log(result.error.issues[0]?.message); // Unrecognized key: "temperature" (it belongs in settings)
 * ```
 */
export const AiSdkAgentOptionsSchema = z.strictObject({
  id: configRules.id(),
  name: z.string({ error: 'must be a string' }).optional(),
  role: z.string({ error: 'must be a string' }).optional(),
  goal: z.string({ error: 'must be a string' }).optional(),
  model: languageModelRule(),
  system: z.string({ error: 'must be a string' }).optional(),
  settings: aiSdkSettingsRule().optional(),
  onUsage: configRules.function<(report: AiSdkUsageReport) => void>().optional(),
});

/**
 * An {@link Agent} backed by an AI SDK language model, with its token usage observable.
 *
 * @remarks
 * What {@link aiSdkAgent} returns: call it with `stream`/`invoke$` like any agent, and read token usage
 * from `usage$` (every reply, as it finishes) or `lastUsage` (the latest one).
 *
 * @example
 * ```ts
 * // no-run: needs a language model (an OpenAI-compatible server or a provider account)
 * import { lastValue, invoke$ } from '@rxagents/core';
 * import { aiSdkAgent, type AiSdkAgent, type AiSdkAgentOptions } from '@rxagents/ai-sdk';
 *
 * declare const model: AiSdkAgentOptions['model'];
 *
 * const writer: AiSdkAgent = aiSdkAgent({ id: 'writer', model });
 * writer.usage$.subscribe(({ input, totalTokens }) => console.log(`${input}: ${totalTokens ?? '?'} tokens`));
 * await lastValue(invoke$(writer, 'A haiku about queues', { metadata: { taskId: 't1' } }));
 * console.log(writer.lastUsage?.metadata); // { taskId: 't1' }
 * ```
 */
export interface AiSdkAgent extends Agent {
  /** Every finished reply's usage, hot: subscribe before calling to see a call's report. Never completes. */
  readonly usage$: Observable<AiSdkUsageReport>;
  /** The usage of the last reply that finished, or `undefined` before the first. */
  readonly lastUsage: AiSdkUsageReport | undefined;
}

/**
 * An agent that answers through the Vercel AI SDK's `streamText`, streaming the model's text deltas as chunks.
 *
 * @remarks
 * Each subscription to `chat` makes one `streamText` call: the options' `system` as the system prompt,
 * `ChatOptions.context` as prior messages (see {@link toModelMessages}), the input as the last user
 * message, `settings` as call settings and `ChatOptions.signal` as the abort signal (unsubscribing aborts
 * too, which cancels the HTTP request). Chunks are the text deltas, in order. A provider failure errors the
 * reply with an `AgentError` carrying the HTTP `status`, retryable for 429 and 5xx (see {@link toAgentError});
 * an abort errors it with the signal's reason, so a cut-off reply never looks whole.
 *
 * Token usage cannot travel in the reply (chunks are strings), so it travels beside it: when a reply
 * finishes, an {@link AiSdkUsageReport} is emitted on `usage$`, stored as `lastUsage` and passed to
 * `onUsage`, before the reply completes. Aborted or failed calls report nothing. An `onUsage` that throws
 * fails the reply with an `AgentError` (not retryable, the thrown error as `cause`), after the report
 * reached `usage$` and `lastUsage`: nothing escapes as an unhandled error.
 *
 * In a paced run (a `runEventStream` reader in `pace` mode), the agent reads the SDK's stream only while the
 * reader keeps up, so a stalled reader holds at most its buffer of the reply's events. The SDK itself still
 * reads the provider's HTTP stream to its end and keeps its parts until the reply is read: `streamText`
 * consumes the provider's stream whether or not anyone reads its result.
 *
 * @throws {@link @rxagents/core!ConfigError | ConfigError} when an option is invalid (empty `id`, no `model`, unknown option).
 *
 * @example
 * ```ts
 * // no-run: needs a language model (an OpenAI-compatible server or a provider account)
 * import { invoke$ } from '@rxagents/core';
 * import { aiSdkAgent, type AiSdkAgentOptions } from '@rxagents/ai-sdk';
 * import { lastValueFrom } from 'rxjs';
 *
 * // Any AI SDK model: openai('gpt-4o-mini'), anthropic('claude-sonnet-4-5'), createOpenAICompatible({ ... })('llama3.1').
 * declare const model: AiSdkAgentOptions['model'];
 *
 * const billing = aiSdkAgent({
 *   id: 'billing',
 *   role: 'Billing specialist',
 *   model,
 *   system: 'You answer billing questions in two sentences.',
 *   settings: { temperature: 0.2, maxRetries: 0 },
 * });
 * billing.usage$.subscribe((usage) => console.log(`${usage.inputTokens} tokens in, ${usage.outputTokens} out`));
 * console.log(await lastValueFrom(invoke$(billing, 'Why was I charged twice?', { timeout: 30_000 })));
 * ```
 */
export function aiSdkAgent(options: AiSdkAgentOptions): AiSdkAgent {
  const parsed = parseConfig(AiSdkAgentOptionsSchema, options, 'aiSdkAgent options');
  const { id, model, system } = parsed;
  const settings = parsed.settings === undefined ? undefined : toStreamTextSettings(parsed.settings);
  const usage = new Subject<AiSdkUsageReport>();
  let lastUsage: AiSdkUsageReport | undefined;
  const { onUsage } = parsed;

  const chat = (input: string, chatOptions: ChatOptions): Observable<string> => {
    checkChatCall(id, input, chatOptions);
    const { signal, context = [], metadata, run } = chatOptions;
    return streamModelParts({
      model,
      ...(system === undefined ? {} : { system }),
      messages: [...toModelMessages(context), { role: 'user', content: input }],
      ...(settings === undefined ? {} : { settings }),
      signal,
      pace: run?.pace,
    }).pipe(
      tap((part) => {
        if (part.type !== 'finish') return;
        lastUsage = { ...toAiSdkUsage(part.totalUsage, part.finishReason), agentId: id, input, ...(metadata === undefined ? {} : { metadata }) };
        usage.next(lastUsage);
        emitUsage(run, lastUsage);
        // Thrown here, it fails this reply (an AgentError naming the agent) instead of escaping unhandled.
        onUsage?.(lastUsage);
      }),
      filter(isTextDelta),
      map((part) => part.text),
      filter((text) => text !== ''),
      catchError((error: unknown) => throwError(() => (signal.aborted ? signal.reason : toAgentError(id, error)))),
    );
  };

  const agent: AiSdkAgent = {
    id,
    ...(parsed.name === undefined ? {} : { name: parsed.name }),
    ...(parsed.role === undefined ? {} : { role: parsed.role }),
    ...(parsed.goal === undefined ? {} : { goal: parsed.goal }),
    chat,
    usage$: usage.asObservable(),
    get lastUsage() {
      return lastUsage;
    },
  };
  return Object.freeze(agent);
}

function isTextDelta(part: ModelStreamPart): part is Extract<TextStreamPart<ToolSet>, { type: 'text-delta' }> {
  return part.type === 'text-delta';
}
