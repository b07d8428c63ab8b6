import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AgentError, lastValue, invoke$ } from '@rxagents/core';
import { handoff, HandoffValidationError, routingAgent } from '@rxagents/handoff';
import { z } from 'zod';
import { aiSdkAgent, aiSdkToolCallingModel, ModelCallError } from '@rxagents/ai-sdk';
import { lastUserText, startOpenAiCompatibleServer, type ChatCompletionsBody, type OpenAiCompatibleServer } from './openAiCompatibleServer';

function systemText(body: ChatCompletionsBody): string {
  return body.messages
    .filter((message) => message.role === 'system')
    .map((message) => (typeof message.content === 'string' ? message.content : ''))
    .join('\n');
}

describe('routingAgent with aiSdkToolCallingModel, over real HTTP', () => {
  let server: OpenAiCompatibleServer;
  let provider: ReturnType<typeof createOpenAICompatible>;

  beforeAll(async () => {
    // The server's "model": a router that calls transfer_to_billing for invoices, and two specialists
    // that stream their answers token by token.
    server = await startOpenAiCompatibleServer((body) => {
      const text = lastUserText(body);
      const offered = body.tools?.map((tool) => tool.function.name) ?? [];
      if (offered.length > 0 && /busy/i.test(text)) return { kind: 'http-error', status: 429, message: 'Rate limit reached' };
      if (offered.includes('transfer_to_billing') && /malformed/i.test(text)) {
        return { kind: 'tool-call', name: 'transfer_to_billing', argumentChunks: ['{"reason":', '42}'] };
      }
      if (offered.includes('transfer_to_billing') && /invoice/i.test(text)) {
        return { kind: 'tool-call', name: 'transfer_to_billing', argumentChunks: ['{"reason":', '"invoice"}'] };
      }
      if (offered.length > 0) return { kind: 'text', deltas: ['I can answer ', 'that myself.'] };
      if (systemText(body).includes('You are Billing')) return { kind: 'text', deltas: ['Billing here: ', 'invoice 42 ', 'is paid.'] };
      if (systemText(body).includes('You are Support')) return { kind: 'text', deltas: ['Support here.'] };
      return { kind: 'text', deltas: ['?'] };
    });
    provider = createOpenAICompatible({ name: 'test-server', baseURL: server.baseURL, includeUsage: true });
  });

  afterAll(() => server.close());

  function build() {
    const billing = aiSdkAgent({ id: 'billing', name: 'Billing', role: 'Billing specialist', model: provider('test-model'), system: 'You are Billing.' });
    const support = aiSdkAgent({ id: 'support', name: 'Support', role: 'Support specialist', model: provider('test-model'), system: 'You are Support.' });
    const router = routingAgent({
      id: 'triage',
      name: 'Triage',
      instructions: 'Route the customer to the right team.',
      handoffs: [handoff({ agent: billing, inputSchema: z.object({ reason: z.string() }) }), handoff({ agent: support })],
      model: aiSdkToolCallingModel({ model: provider('test-model'), settings: { maxRetries: 0 } }),
    });
    return { billing, support, router };
  }

  it('hands "a question about my invoice" to Billing because the server model called transfer_to_billing', async () => {
    const { billing, router } = build();
    const before = server.requests.length;

    const answer = await lastValue(invoke$(router, 'a question about my invoice', { timeout: 10_000 }));

    expect(answer).toBe('Billing here: invoice 42 is paid.');
    const [routing, billingCall] = server.requests.slice(before);
    expect(routing?.tools?.map((tool) => tool.function.name)).toEqual(['transfer_to_billing', 'transfer_to_support']);
    expect(routing?.messages[0]).toEqual({ role: 'system', content: 'Route the customer to the right team.' });
    expect(billingCall?.tools).toBeUndefined();
    expect(systemText(billingCall as ChatCompletionsBody)).toBe('You are Billing.');
    expect(lastUserText(billingCall as ChatCompletionsBody)).toContain('a question about my invoice');
    expect(billing.lastUsage).toMatchObject({ agentId: 'billing', outputTokens: 3 });
  });

  it('answers itself when the server model calls no tool', async () => {
    const { router } = build();

    await expect(lastValue(invoke$(router, 'what time is it?'))).resolves.toBe('I can answer that myself.');
  });

  it("fails with the handoff's validation error when the model's arguments break its inputSchema", async () => {
    const { router } = build();

    const error = await lastValue(invoke$(router, 'malformed invoice request')).catch((e: unknown) => e);

    expect(error).toMatchObject({ cause: expect.any(HandoffValidationError) });
  });

  it('fails with a retryable AgentError caused by a ModelCallError when the routing call is rate limited', async () => {
    const { router } = build();

    const error = await lastValue(invoke$(router, 'are you busy?')).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(AgentError);
    expect(error).toMatchObject({ agentId: 'triage', retryable: true, cause: expect.any(ModelCallError) });
    expect((error as AgentError).cause).toMatchObject({ status: 429, retryable: true });
  });
});
