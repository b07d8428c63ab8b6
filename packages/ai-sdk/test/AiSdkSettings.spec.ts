import { ConfigError, MAX_DELAY_MS, invoke$ } from '@rxagents/core';
import { from, lastValueFrom } from 'rxjs';
import { aiSdkAgent, aiSdkToolCallingModel, AiSdkSettingsSchema, type AiSdkSettings } from '@rxagents/ai-sdk';
import { streamingModel, textParts } from './mockModels';

const withSettings = (settings: unknown) => () => aiSdkAgent({ id: 'a', model: streamingModel(textParts(['ok'])), settings: settings as AiSdkSettings });
const routerWithSettings = (settings: unknown) => () => aiSdkToolCallingModel({ model: streamingModel(textParts(['ok'])), settings: settings as AiSdkSettings });

describe('AI SDK settings', () => {
  it('refuses a misspelled setting, naming the likely one, in both factories', () => {
    expect(withSettings({ temprature: 0.2 })).toThrow(/aiSdkAgent options: settings\.temprature is not a known option \(did you mean temperature\?\)/);
    expect(routerWithSettings({ maxRetires: 0 })).toThrow(/aiSdkToolCallingModel options: settings\.maxRetires is not a known option \(did you mean maxRetries\?\)/);
  });

  it.each(['onChunk', 'onFinish', 'tools', 'prompt', 'messages', 'model', 'abortSignal', 'stopWhen'])(
    'refuses %s in settings: only call settings reach streamText',
    (key) => {
      expect(withSettings({ [key]: () => undefined })).toThrow(new RegExp(`settings\\.${key} is not a known option`));
    },
  );

  it.each([
    [2 ** 31, 'settings.timeout'],
    [MAX_DELAY_MS + 1, 'settings.timeout'],
    [0, 'settings.timeout'],
    [-5, 'settings.timeout'],
    [{ chunkMs: 2 ** 31 }, 'settings.timeout.chunkMs'],
    [{ totalMs: 30 * 86_400_000 }, 'settings.timeout.totalMs'],
  ])('refuses the SDK timeout %p, which a timer cannot wait (it would fire after 1 ms)', (timeout, path) => {
    const build = withSettings({ timeout });
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(new RegExp(`${path.replace(/\./g, '\\.')} must be a number of milliseconds greater than 0 and at most ${MAX_DELAY_MS}`));
  });

  it.each([Infinity, { totalMs: Infinity, chunkMs: Infinity }, { stepMs: Infinity, chunkMs: 60_000 }])(
    'takes the SDK timeout %p as no timeout (Infinity means none) and answers',
    async (timeout) => {
      const agent = aiSdkAgent({ id: 'a', model: streamingModel(textParts(['ok'])), settings: { timeout, maxRetries: 0 } });

      await expect(lastValueFrom(invoke$(agent, 'hi'))).resolves.toBe('ok');
    },
  );

  it('refuses more SDK retries than its doubling backoff can wait for (at most 20)', () => {
    expect(withSettings({ maxRetries: 21 })).toThrow(/settings\.maxRetries must be a non-negative integer of at most 20, got 21/);
    expect(withSettings({ maxRetries: 1.5 })).toThrow(/settings\.maxRetries must be a non-negative integer/);
    expect(withSettings({ maxRetries: 20 })).not.toThrow();
  });

  it('refuses settings of the wrong type, naming each', () => {
    expect(withSettings({ temperature: Number.NaN })).toThrow(/settings\.temperature must be a finite number/);
    expect(withSettings({ stopSequences: 'END' })).toThrow(/settings\.stopSequences must be an array of strings/);
    expect(withSettings({ headers: 'x' })).toThrow(/settings\.headers must be an object/);
    // A Headers or Map would pass as "an object" and lose every entry when the SDK spreads it.
    expect(withSettings({ headers: new Headers({ 'x-trace': 't1' }) })).toThrow(/settings\.headers must be an object of header names to string values/);
    expect(withSettings({ providerOptions: new Map([['openai', {}]]) })).toThrow(/settings\.providerOptions must be an object of provider names/);
    expect(withSettings({ headers: Object.assign(Object.create(null), { 'x-trace': 't1' }) })).not.toThrow();
    expect(withSettings({ maxOutputTokens: 0 })).toThrow(/settings\.maxOutputTokens must be a positive integer/);
  });

  it('passes headers and providerOptions through unchanged', async () => {
    const model = streamingModel(textParts(['ok']));
    const providerOptions = { local: { reasoning: 'low' } };
    const agent = aiSdkAgent({ id: 'a', model, settings: { headers: { 'x-trace': 't1' }, providerOptions } });

    await lastValueFrom(invoke$(agent, 'hi'));

    expect(model.doStreamCalls[0]?.headers).toMatchObject({ 'x-trace': 't1' });
    expect(model.doStreamCalls[0]?.providerOptions).toEqual(providerOptions);
  });

  it('is exported as a schema for settings read from a file', () => {
    expect(AiSdkSettingsSchema.safeParse({ temperature: 0.2, timeout: { chunkMs: 5_000 } }).success).toBe(true);
    expect(AiSdkSettingsSchema.safeParse({ temperature: 0.2, tools: {} }).success).toBe(false);
  });

  it('takes a tool-calling model timeout of Infinity as none too', async () => {
    const router = aiSdkToolCallingModel({ model: streamingModel(textParts(['ok'])), settings: { timeout: Infinity } });

    await expect(lastValueFrom(from(router({ messages: [{ role: 'user', content: 'hi' }], tools: [] })))).resolves.toEqual({ content: 'ok' });
  });
});

describe('aiSdkAgent id', () => {
  it('refuses a whitespace-only id', () => {
    expect(() => aiSdkAgent({ id: '   ', model: streamingModel([]) })).toThrow(/aiSdkAgent options: id must be a non-blank string/);
  });
});
