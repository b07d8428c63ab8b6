import type { FinishReason, LanguageModelUsage } from 'ai';

/**
 * Token usage of one model call, as the AI SDK reported it.
 *
 * @remarks
 * `inputTokens`/`outputTokens`/`totalTokens` are lifted out of the SDK's `LanguageModelUsage` because
 * they are what a UI shows next to a cost; `details` keeps the SDK's whole record (cached input tokens,
 * reasoning tokens). A count is `undefined` when the provider did not report it (some OpenAI-compatible
 * servers only report usage when asked: `createOpenAICompatible({ includeUsage: true, ... })`).
 *
 * @example
 * ```ts
 * import type { AiSdkUsage } from '@rxagents/ai-sdk';
 *
 * const costInCents = (usage: AiSdkUsage): number =>
 *   ((usage.inputTokens ?? 0) * 0.015 + (usage.outputTokens ?? 0) * 0.06) / 100;
 * ```
 */
export interface AiSdkUsage {
  /** Prompt tokens, when reported. */
  readonly inputTokens: number | undefined;
  /** Completion tokens, when reported. */
  readonly outputTokens: number | undefined;
  /** All tokens, when reported. */
  readonly totalTokens: number | undefined;
  /** Why the model stopped: `stop`, `length`, `tool-calls`, `content-filter`, `error` or `other`. */
  readonly finishReason: FinishReason;
  /** The SDK's full usage record (cache and reasoning details). */
  readonly details: LanguageModelUsage;
}

/**
 * Usage of one `aiSdkAgent` reply: the tokens, the agent and the call it belongs to.
 *
 * @remarks
 * Emitted on {@link AiSdkAgent.usage$} (and kept as {@link AiSdkAgent.lastUsage}) when a reply finishes,
 * before the reply's Observable completes. `input` and `metadata` (the call's `ChatOptions.metadata`, for
 * example a task id) tell concurrent calls to one agent apart.
 *
 * @example
 * ```ts
 * import type { AiSdkUsageReport } from '@rxagents/ai-sdk';
 *
 * const line = (report: AiSdkUsageReport): string =>
 *   `${report.agentId}: ${report.inputTokens ?? '?'} in / ${report.outputTokens ?? '?'} out`;
 * ```
 */
export interface AiSdkUsageReport extends AiSdkUsage {
  /** The agent that answered. */
  readonly agentId: string;
  /** The prompt it answered. */
  readonly input: string;
  /** The call's `ChatOptions.metadata`, when it had any. */
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** @internal Lifts the SDK's usage record into an {@link AiSdkUsage}. */
export function toAiSdkUsage(details: LanguageModelUsage, finishReason: FinishReason): AiSdkUsage {
  return {
    inputTokens: details.inputTokens,
    outputTokens: details.outputTokens,
    totalTokens: details.totalTokens,
    finishReason,
    details,
  };
}
