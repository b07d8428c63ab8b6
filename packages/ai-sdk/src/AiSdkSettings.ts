import type { CallSettings, streamText } from 'ai';
import { z } from 'zod';

/**
 * The AI SDK call settings an rxagents model or agent passes to every `streamText` call.
 *
 * @remarks
 * The AI SDK's own `CallSettings` (`temperature`, `maxOutputTokens`, `topP`, `stopSequences`, `seed`,
 * `maxRetries`, `timeout`, `headers`, ...) plus `providerOptions`, without `abortSignal`: the signal
 * always comes from the call (`ChatOptions.signal` or `ToolCallingRequest.signal`), so cancellation stays
 * unsubscription. `maxRetries` keeps the SDK's default (2); set it to `0` when a coordination layer above
 * (a supervisor, a retry operator) owns retries.
 *
 * @example
 * ```ts
 * import type { AiSdkSettings } from '@rxagents/ai-sdk';
 *
 * const settings: AiSdkSettings = { temperature: 0.2, maxOutputTokens: 512, maxRetries: 0 };
 * ```
 */
export type AiSdkSettings = Omit<CallSettings, 'abortSignal'> & {
  /** Provider-specific options, passed through to the provider unchanged. */
  readonly providerOptions?: Parameters<typeof streamText>[0]['providerOptions'];
};

/** @internal The zod rule for an {@link AiSdkSettings} object. */
export const aiSdkSettingsRule = (): z.ZodType<AiSdkSettings> =>
  z.custom<AiSdkSettings>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), {
    error: 'must be an object of AI SDK call settings',
  });
