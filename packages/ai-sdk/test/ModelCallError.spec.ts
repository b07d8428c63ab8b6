import { from, lastValueFrom } from 'rxjs';
import { aiSdkToolCallingModel, ModelCallError } from '@rxagents/ai-sdk';
import { streamingModel, textParts } from './mockModels';

describe('ModelCallError', () => {
  it('describes any cause in a short message, even one that cannot become a string', () => {
    const unprintable = Object.assign(Object.create(null) as object, { n: 1n });
    const huge = { text: 'x'.repeat(100_000) };

    expect(new ModelCallError(unprintable).message).toBe('Model call failed: [object Object]');
    expect(new ModelCallError(huge).message.length).toBeLessThan(200);
    expect(new ModelCallError(new Error('boom')).message).toBe('Model call failed: boom');
  });

  it('reaches the caller when onUsage throws a value that cannot become a string', async () => {
    const thrown = Object.assign(Object.create(null) as object, { n: 1n });
    const model = aiSdkToolCallingModel({
      model: streamingModel(textParts(['ok'])),
      onUsage: () => {
        throw thrown;
      },
    });

    const error = await lastValueFrom(from(model({ messages: [{ role: 'user', content: 'hi' }], tools: [] }))).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as ModelCallError).cause).toBe(thrown);
  });
});
