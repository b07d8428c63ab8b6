import { configRules, emitUsage, parseConfig, type Agent, type ChatOptions } from '@rxagents/core';
import type { LanguageModel, TextStreamPart, ToolSet } from 'ai';
import { catchError, filter, map, type Observable, Subject, tap, throwError } from 'rxjs';
import { z } from 'zod';
import { aiSdkSettingsRule, toStreamTextSettings, type AiSdkSettings } from './AiSdkSettings';
import { toAiSdkUsage, type AiSdkUsageReport } from './AiSdkUsage';
import { languageModelRule } from './languageModelRule';
import { streamModelParts, type ModelStreamPart } from './streamModelParts';
import { streamToolLoop } from './internal/streamToolLoop';
import { toolSetRule } from './internal/toolSetRule';
import { toAgentError } from './toAgentError';
import { toModelMessages } from './toModelMessages';
import { checkChatCall } from './internal/checkChatCall';
import { reportOperations } from './internal/reportOperations';

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
  /**
   * AI SDK tools the model may call (`tool({ description, inputSchema, execute, needsApproval })`): the SDK
   * runs them in its own multi-step loop. A tool with `needsApproval` waits for a person's approval asked in
   * the call's run (see {@link aiSdkAgent}). Every tool's `execute` gets the call's run as
   * `experimental_context.run` (the call's `ChatOptions.run`, `undefined` outside a run), to report into it
   * with `emitCustom`.
   */
  readonly tools?: ToolSet;
  /** The most model steps of one reply with `tools` (each step: the model answers, the tools it called run). Default 20. */
  readonly maxSteps?: number;
  /** How long a tool approval waits, in ms on the run's scheduler; unanswered by then, it is a refusal ("Not answered in time"). Default: waits for ever. */
  readonly approvalTimeout?: number;
}

/** The default step bound of a reply with tools: the AI SDK's own `ToolLoopAgent` default. */
const DEFAULT_MAX_STEPS = 20;

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
  tools: toolSetRule().optional(),
  maxSteps: configRules.positiveInt(1000).optional(),
  approvalTimeout: configRules.timeoutMs().optional(),
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
 * With `tools`, a reply is the AI SDK's own multi-step tool loop: the model calls tools, the SDK runs them
 * and gives the model their results, until the model answers without a tool call or `maxSteps` model steps
 * (default 20) have run. The text of every step streams as chunks; the usage report is one per reply, its
 * tokens summed over every model step. Each tool's `execute` is given `experimental_context: { run }`, the
 * call's `ChatOptions.run`, so a tool can report into the run (`emitCustom(context.run, ...)`) under the
 * agent's call. A tool with `needsApproval` (a boolean, or the SDK's predicate over
 * the call's input) is not run when the model calls it: the agent asks a person in the call's run with
 * `askForApproval(run, toolName, input)` (an `interrupt` event of kind `approval`, under the agent's call;
 * several of one step are open at once). Approved, the SDK runs the tool and the model gets its result;
 * refused, the tool does not run and the model gets the SDK's `execution-denied` result with the person's
 * reason, and the reply goes on. `approvalTimeout` turns an unanswered approval into a refusal ("Not
 * answered in time"). Without a run to ask in (`ChatOptions.run` undefined) such a tool call fails the reply
 * with an `AgentError` whose cause is a {@link ToolApprovalUnavailableError}; the tool never runs. Cancelling
 * the reply aborts the model call and closes the open approvals. In a durable run, a reply stopped while an
 * approval was open runs again when the run resumes (from its first model step: tools approved before the
 * stop run again, so make them idempotent, for example keyed by `ChatOptions.idempotencyKey`), and the
 * model's same tool call is asked under the same interrupt id.
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
 *
 * @example
 * A tool a person must approve (here a scripted model; the person answers as soon as asked):
 * ```ts
 * import { answerInterrupt, invoke$, observeRun } from '@rxagents/core';
 * import { aiSdkAgent } from '@rxagents/ai-sdk';
 * import { tool } from 'ai';
 * import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test';
 * import { z } from 'zod';
 *
 * const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
 * const model = new MockLanguageModelV3({
 *   doStream: async ({ prompt }) => ({
 *     // Given the tool's result, the model answers; before, it calls the tool.
 *     stream:
 *       prompt.at(-1)?.role === 'tool'
 *         ? convertArrayToReadableStream([
 *             { type: 'text-start', id: 't' },
 *             { type: 'text-delta', id: 't', delta: 'Refunded.' },
 *             { type: 'text-end', id: 't' },
 *             { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
 *           ])
 *         : convertArrayToReadableStream([
 *             { type: 'tool-call', toolCallId: 'c1', toolName: 'refund', input: '{"amount":120}' },
 *             { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
 *           ]),
 *   }),
 * });
 * const refund = tool({ inputSchema: z.object({ amount: z.number() }), needsApproval: true, execute: async ({ amount }) => ({ refunded: amount }) });
 * const cashier = aiSdkAgent({ id: 'cashier', model, tools: { refund } });
 * observeRun('refund', 'Refund Ada', (run) => invoke$(cashier, 'Refund Ada', { run })).subscribe((event) => {
 *   if (event.type === 'interrupt') queueMicrotask(() => answerInterrupt(event.runId, event.interruptId, { approved: true }));
 *   if (event.type === 'run-end') console.log(event.output); // Refunded.
 * });
 * ```
 */
export function aiSdkAgent(options: AiSdkAgentOptions): AiSdkAgent {
  const parsed = parseConfig(AiSdkAgentOptionsSchema, options, 'aiSdkAgent options');
  const { id, model, system } = parsed;
  const settings = parsed.settings === undefined ? undefined : toStreamTextSettings(parsed.settings);
  const usage = new Subject<AiSdkUsageReport>();
  let lastUsage: AiSdkUsageReport | undefined;
  const { onUsage, tools, approvalTimeout } = parsed;
  const maxSteps = parsed.maxSteps ?? DEFAULT_MAX_STEPS;

  const chat = (input: string, chatOptions: ChatOptions): Observable<string> => {
    checkChatCall(id, input, chatOptions);
    const { signal, context = [], metadata, run } = chatOptions;
    const request = {
      model,
      ...(system === undefined ? {} : { system }),
      messages: [...toModelMessages(context), { role: 'user' as const, content: input }],
      ...(settings === undefined ? {} : { settings }),
      signal,
      pace: run?.pace,
    };
    const parts$ =
      tools === undefined ? streamModelParts(request) : streamToolLoop({ ...request, tools, toolContext: { run }, agentId: id, run, maxSteps, approvalTimeout });
    return parts$.pipe(
      reportOperations(run),
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
