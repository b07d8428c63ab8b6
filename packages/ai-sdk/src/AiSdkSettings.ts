import { configRules } from '@rxagents/core';
import type { CallSettings, streamText } from 'ai';
import { z } from 'zod';

/**
 * The AI SDK call settings an rxagents model or agent passes to every `streamText` call.
 *
 * @remarks
 * The AI SDK's own `CallSettings` (`temperature`, `maxOutputTokens`, `topP`, `topK`, `presencePenalty`,
 * `frequencyPenalty`, `stopSequences`, `seed`, `maxRetries`, `timeout`, `headers`) plus `providerOptions`,
 * without `abortSignal`: the signal always comes from the call (`ChatOptions.signal` or
 * `ToolCallingRequest.signal`), so cancellation stays unsubscription. Nothing else reaches `streamText`:
 * callbacks (`onChunk`, `onFinish`), `tools` or `prompt` are a `ConfigError` (see
 * {@link AiSdkSettingsSchema}). `maxRetries` keeps the SDK's default (2), at most 20; set it to `0` when a
 * coordination layer above (a supervisor, a retry operator) owns retries. `timeout` (a number, or
 * `{ totalMs, stepMs, chunkMs }`) runs on the SDK's real timers; `Infinity` means none.
 *
 * @example
 * ```ts
 * import type { AiSdkSettings } from '@rxagents/ai-sdk';
 *
 * const settings: AiSdkSettings = { temperature: 0.2, maxOutputTokens: 512, maxRetries: 0, timeout: { chunkMs: 20_000 } };
 * ```
 */
export type AiSdkSettings = Omit<CallSettings, 'abortSignal'> & {
  /** Provider-specific options, passed through to the provider unchanged. */
  readonly providerOptions?: Parameters<typeof streamText>[0]['providerOptions'];
};

/**
 * The most retries `maxRetries` accepts: the SDK waits 2 s before its first retry and doubles the wait
 * each time, and its 22nd wait would pass what a timer can hold (it would fire after 1 ms).
 */
const MAX_SDK_RETRIES = 20;

const finiteNumber = () => z.number({ error: 'must be a finite number' }).finite('must be a finite number');

// Checked as objects and passed on as given: zod rebuilds records, which would drop a `__proto__` key.
// A plain object only: the SDK spreads these, so a `Headers` or `Map` (whose entries are no own
// properties) would pass as an object and lose every entry on the way.
const plainObject = (error: string) =>
  z.custom<Record<string, unknown>>((value) => {
    if (typeof value !== 'object' || value === null) return false;
    const prototype: unknown = Object.getPrototypeOf(value);
    return prototype === Object.prototype || prototype === null;
  }, { error });

const timeoutRule = 'must be a number of milliseconds greater than 0 and at most 2147483647, Infinity, or { totalMs?, stepMs?, chunkMs? } of such numbers';

/**
 * The zod schema of {@link AiSdkSettings}.
 *
 * @remarks
 * Strict: an unknown key is refused (with the likely intended key when one is close), so a typo
 * (`temprature`) or a `streamText` option that is not a call setting (`onChunk`, `tools`, `prompt`,
 * `abortSignal`) never slips into the call. Every timeout is `configRules.timeoutMs()`: greater than 0
 * and at most `MAX_DELAY_MS`, or `Infinity` for none (a larger value would fire after 1 ms on Node's
 * timers). `maxRetries` is an integer from 0 to 20. `headers` and `providerOptions` must be objects and are
 * passed through unchanged; the SDK and the provider check their contents.
 *
 * @example
 * ```ts
 * import { AiSdkSettingsSchema } from '@rxagents/ai-sdk';
 *
 * const fromFile: unknown = JSON.parse('{ "temperature": 0.2, "timeout": { "chunkMs": 20000 } }');
 * console.log(AiSdkSettingsSchema.safeParse(fromFile).success); // true
 * ```
 */
export const AiSdkSettingsSchema = z.strictObject({
  maxOutputTokens: configRules.positiveInt().optional(),
  temperature: finiteNumber().optional(),
  topP: finiteNumber().optional(),
  topK: finiteNumber().optional(),
  presencePenalty: finiteNumber().optional(),
  frequencyPenalty: finiteNumber().optional(),
  stopSequences: z.array(z.string(), { error: 'must be an array of strings' }).optional(),
  seed: configRules.int().optional(),
  maxRetries: configRules.nonNegativeInt(MAX_SDK_RETRIES).optional(),
  timeout: z
    .union(
      [
        configRules.timeoutMs(),
        z.strictObject({
          totalMs: configRules.timeoutMs().optional(),
          stepMs: configRules.timeoutMs().optional(),
          chunkMs: configRules.timeoutMs().optional(),
        }),
      ],
      { error: timeoutRule },
    )
    .optional(),
  headers: plainObject('must be an object of header names to string values').optional(),
  providerOptions: plainObject('must be an object of provider names to option objects').optional(),
}, { error: 'must be an object of AI SDK call settings' });

/** @internal The zod rule for an {@link AiSdkSettings} object (the strict schema, typed as the SDK's settings). */
export const aiSdkSettingsRule = (): z.ZodType<AiSdkSettings> => AiSdkSettingsSchema as unknown as z.ZodType<AiSdkSettings>;

/**
 * @internal The settings as `streamText` takes them: the caller's own object minus every `Infinity`
 * timeout (the SDK would hand `Infinity` to a platform timer or `AbortSignal.timeout`, which fire at once or throw).
 */
export function toStreamTextSettings(settings: AiSdkSettings): AiSdkSettings {
  const { timeout, ...rest } = settings;
  if (timeout === undefined) return settings;
  if (typeof timeout === 'number') return timeout === Infinity ? rest : settings;
  const finite = Object.fromEntries(Object.entries(timeout).filter(([, ms]) => ms !== Infinity)) as Exclude<AiSdkSettings['timeout'], number | undefined>;
  return Object.keys(finite).length === 0 ? rest : { ...rest, timeout: finite };
}
