import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AgentError, stream, invoke$ } from '@rxagents/core';
import { from, lastValueFrom, toArray } from 'rxjs';
import { aiSdkAgent, aiSdkToolCallingModel, type AiSdkUsageReport } from '@rxagents/ai-sdk';
import { lastUserText, startOpenAiCompatibleServer, type OpenAiCompatibleServer } from './openAiCompatibleServer';

describe('over real HTTP, through the OpenAI-compatible provider', () => {
  let server: OpenAiCompatibleServer;
  let provider: ReturnType<typeof createOpenAICompatible>;

  beforeAll(async () => {
    server = await startOpenAiCompatibleServer((body) => {
      const text = lastUserText(body);
      const offersBilling = body.tools?.some((tool) => tool.function.name === 'transfer_to_billing') ?? false;
      if (text === 'talk forever') return { kind: 'hang', firstDelta: 'Well, ' };
      if (text === 'rate limit me') return { kind: 'http-error', status: 429, message: 'Rate limit reached' };
      if (text === 'bad request') return { kind: 'http-error', status: 400, message: 'Unknown model' };
      if (offersBilling && /invoice/i.test(text)) return { kind: 'tool-call', name: 'transfer_to_billing', argumentChunks: ['{"reason":', '"invoice"}'] };
      return { kind: 'text', deltas: ['Hello', ' from', ' the', ' server'] };
    });
    provider = createOpenAICompatible({ name: 'test-server', baseURL: server.baseURL, apiKey: 'test-key', includeUsage: true });
  });

  afterAll(() => server.close());

  it('streams an aiSdkAgent reply token by token from the server', async () => {
    const agent = aiSdkAgent({ id: 'greeter', model: provider('test-model'), system: 'Be friendly.' });
    const reports: AiSdkUsageReport[] = [];
    agent.usage$.subscribe((report) => reports.push(report));

    const chunks = await lastValueFrom(stream(agent, 'Say hello', { context: [{ role: 'user', content: 'Hi' }] }).pipe(toArray()));

    expect(chunks).toEqual(['Hello', ' from', ' the', ' server']);
    const sent = server.requests.at(-1);
    expect(sent).toMatchObject({
      model: 'test-model',
      stream: true,
      messages: [
        { role: 'system', content: 'Be friendly.' },
        { role: 'user', content: 'Hi' },
        { role: 'user', content: 'Say hello' },
      ],
    });
    expect(reports).toEqual([expect.objectContaining({ agentId: 'greeter', inputTokens: 30, outputTokens: 4, totalTokens: 34 })]);
  });

  it('closes the HTTP request when the caller unsubscribes mid-stream', async () => {
    const agent = aiSdkAgent({ id: 'talker', model: provider('test-model') });

    const first = await new Promise<string>((resolve) => {
      const subscription = stream(agent, 'talk forever').subscribe((chunk) => {
        subscription.unsubscribe();
        resolve(chunk);
      });
    });

    expect(first).toBe('Well, ');
    await expect(server.hungUpRequest).resolves.toBeUndefined();
  });

  it('closes the HTTP request when the server streams an error mid-reply and keeps the connection open', async () => {
    const failing = await startOpenAiCompatibleServer(() => ({ kind: 'error-then-hang', firstDelta: 'Half ', message: 'model crashed' }));
    try {
      const agent = aiSdkAgent({ id: 'crashy', model: createOpenAICompatible({ name: 'failing', baseURL: failing.baseURL })('test-model') });
      const chunks: string[] = [];

      const error = await new Promise<unknown>((resolve) =>
        stream(agent, 'hi').subscribe({ next: (chunk) => chunks.push(chunk), error: resolve, complete: () => resolve('completed') }),
      );

      expect(chunks).toEqual(['Half ']);
      expect(error).toBeInstanceOf(AgentError);
      expect((error as AgentError).message).toContain('model crashed');
      await expect(failing.hungUpRequest).resolves.toBeUndefined();
    } finally {
      await failing.close();
    }
  });

  it("fails the SDK's own timeout setting with a retryable AgentError that says it timed out", async () => {
    const agent = aiSdkAgent({ id: 'slow', model: provider('test-model'), settings: { timeout: 100, maxRetries: 0 } });

    const error = await lastValueFrom(invoke$(agent, 'talk forever')).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(AgentError);
    expect(error).toMatchObject({ agentId: 'slow', retryable: true, cause: expect.objectContaining({ name: 'TimeoutError' }) });
    expect((error as AgentError).message).toMatch(/timeout/i);
  });

  it('maps HTTP 429 to a retryable AgentError and 400 to a non-retryable one', async () => {
    const agent = aiSdkAgent({ id: 'billing', model: provider('test-model'), settings: { maxRetries: 0 } });

    const [rateLimited, badRequest] = await Promise.all([
      lastValueFrom(invoke$(agent, 'rate limit me')).catch((e: unknown) => e),
      lastValueFrom(invoke$(agent, 'bad request')).catch((e: unknown) => e),
    ]);

    expect(rateLimited).toBeInstanceOf(AgentError);
    expect(rateLimited).toMatchObject({ agentId: 'billing', status: 429, retryable: true });
    expect((rateLimited as AgentError).message).toContain('Rate limit reached');
    expect(badRequest).toMatchObject({ agentId: 'billing', status: 400, retryable: false });
  });

  it('returns the transfer_to_billing call the server model made', async () => {
    const model = aiSdkToolCallingModel({ model: provider('test-model'), system: 'Route the user.' });

    const response = await lastValueFrom(
      from(
        model({
          messages: [{ role: 'user', content: 'a question about my invoice' }],
          tools: [
            { type: 'function', function: { name: 'transfer_to_billing', description: 'Billing', parameters: { type: 'object', properties: { reason: { type: 'string' } } } } },
            { type: 'function', function: { name: 'transfer_to_support', description: 'Support', parameters: { type: 'object', properties: {} } } },
          ],
        }),
      ),
    );

    expect(response).toEqual({ toolCalls: [{ id: 'call_test_1', name: 'transfer_to_billing', arguments: '{"reason":"invoice"}' }] });
    expect(server.requests.at(-1)?.tools?.map((tool) => tool.function.name)).toEqual(['transfer_to_billing', 'transfer_to_support']);
    expect(model.lastUsage).toMatchObject({ inputTokens: 20, outputTokens: 2, finishReason: 'tool-calls' });
  });
});
