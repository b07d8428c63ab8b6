import { ConfigError, defineAgent, invoke$, observeRun, RunEventSchema, type Message, type RunEvent } from '@rxagents/core';
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { handoff, routingAgent, type ToolDefinition } from '@rxagents/handoff';
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test';
import { config, from, lastValueFrom, retry, tap, toArray } from 'rxjs';
import { aiSdkToolCallingModel, ModelCallError, type AiSdkUsage } from '@rxagents/ai-sdk';
import { apiCallError, controlledModel, failingModel, settle, streamingModel, textParts, usage } from './mockModels';

const transferTools: ToolDefinition[] = [
  {
    type: 'function',
    function: {
      name: 'transfer_to_billing',
      description: 'Hand off to Billing for invoices and payments',
      parameters: { type: 'object', properties: { reason: { type: 'string' } }, additionalProperties: false },
    },
  },
  {
    type: 'function',
    function: { name: 'transfer_to_support', description: 'Hand off to Support', parameters: { type: 'object', properties: {} } },
  },
];
const question: Message[] = [{ role: 'user', content: 'A question about my invoice' }];

describe('aiSdkToolCallingModel', () => {
  it('offers the tools as AI SDK function tools with their JSON Schema, and no tool when none is offered', async () => {
    const mock = streamingModel(textParts(['ok']));
    const model = aiSdkToolCallingModel({ model: mock });

    await lastValueFrom(from(model({ messages: question, tools: transferTools })));
    await lastValueFrom(from(model({ messages: question, tools: [] })));

    expect(mock.doStreamCalls[0]?.tools).toEqual([
      {
        type: 'function',
        name: 'transfer_to_billing',
        description: 'Hand off to Billing for invoices and payments',
        inputSchema: { type: 'object', properties: { reason: { type: 'string' } }, additionalProperties: false },
      },
      { type: 'function', name: 'transfer_to_support', description: 'Hand off to Support', inputSchema: { type: 'object', properties: {} } },
    ]);
    expect(mock.doStreamCalls[1]?.tools).toBeUndefined();
  });

  it('returns the model tool calls as { id, name, arguments } with arguments as a JSON string', async () => {
    const model = aiSdkToolCallingModel({
      model: streamingModel([
        { type: 'tool-call', toolCallId: 'call-1', toolName: 'transfer_to_billing', input: '{"reason":"invoice"}' },
        { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(30, 8) },
      ]),
    });

    const response = await lastValueFrom(from(model({ messages: question, tools: transferTools })));

    expect(response).toEqual({ toolCalls: [{ id: 'call-1', name: 'transfer_to_billing', arguments: '{"reason":"invoice"}' }] });
    expect(JSON.parse(response.toolCalls?.[0]?.arguments ?? '')).toEqual({ reason: 'invoice' });
  });

  it('returns text and several tool calls together, in order', async () => {
    const model = aiSdkToolCallingModel({
      model: streamingModel([
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Let me ' },
        { type: 'text-delta', id: 't', delta: 'transfer you.' },
        { type: 'text-end', id: 't' },
        { type: 'tool-call', toolCallId: 'a', toolName: 'transfer_to_billing', input: '{}' },
        { type: 'tool-call', toolCallId: 'b', toolName: 'transfer_to_support', input: '' },
        { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(30, 8) },
      ]),
    });

    const response = await lastValueFrom(from(model({ messages: question, tools: transferTools })));

    expect(response).toEqual({
      content: 'Let me transfer you.',
      toolCalls: [
        { id: 'a', name: 'transfer_to_billing', arguments: '{}' },
        { id: 'b', name: 'transfer_to_support', arguments: '{}' },
      ],
    });
  });

  it('hands back JSON null arguments as null, not as an empty object, for the handoff to reject', async () => {
    const model = aiSdkToolCallingModel({
      model: streamingModel([
        { type: 'tool-call', toolCallId: 'a', toolName: 'transfer_to_billing', input: 'null' },
        { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(30, 8) },
      ]),
    });

    const response = await lastValueFrom(from(model({ messages: question, tools: transferTools })));

    expect(response.toolCalls).toEqual([{ id: 'a', name: 'transfer_to_billing', arguments: 'null' }]);
  });

  it('hands back arguments that are not JSON, and calls of unknown tools, for the handoff to reject', async () => {
    const model = aiSdkToolCallingModel({
      model: streamingModel([
        { type: 'tool-call', toolCallId: 'a', toolName: 'transfer_to_billing', input: '{"reason": oops' },
        { type: 'tool-call', toolCallId: 'b', toolName: 'transfer_to_nowhere', input: '{"x":1}' },
        { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(30, 8) },
      ]),
    });

    const response = await lastValueFrom(from(model({ messages: question, tools: transferTools })));

    expect(response.toolCalls).toEqual([
      { id: 'a', name: 'transfer_to_billing', arguments: '{"reason": oops' },
      { id: 'b', name: 'transfer_to_nowhere', arguments: '{"x":1}' },
    ]);
  });

  it('starts every subscription from an empty response, so a retry after a mid-stream error repeats no text or tool call', async () => {
    let attempt = 0;
    const mock = new MockLanguageModelV3({
      doStream: async () => {
        attempt += 1;
        return {
          stream: convertArrayToReadableStream<LanguageModelV3StreamPart>([
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: 'Transferring you.' },
            { type: 'text-end', id: 't' },
            { type: 'tool-call', toolCallId: `call-${attempt}`, toolName: 'transfer_to_billing', input: '{}' },
            ...(attempt === 1 ? [{ type: 'error', error: apiCallError(502, 'Bad Gateway') } as const] : []),
            { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(30, 8) },
          ]),
        };
      },
    });
    const model = aiSdkToolCallingModel({ model: mock });

    const response = await lastValueFrom(from(model({ messages: question, tools: transferTools })).pipe(retry(1)));

    expect(attempt).toBe(2);
    expect(response).toEqual({ content: 'Transferring you.', toolCalls: [{ id: 'call-2', name: 'transfer_to_billing', arguments: '{}' }] });
  });

  it('sends system, then the request messages, including earlier tool calls and results', async () => {
    const mock = streamingModel(textParts(['done']));
    const model = aiSdkToolCallingModel({ model: mock, system: 'Route the user to the right team.' });

    const response = await lastValueFrom(
      from(
        model({
          messages: [
            ...question,
            { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'transfer_to_support', arguments: '{}' }] },
            { role: 'tool', content: 'Support is closed', toolCallId: 'c1' },
          ],
          tools: transferTools,
        }),
      ),
    );

    expect(response).toEqual({ content: 'done' });
    expect(mock.doStreamCalls[0]?.prompt).toEqual([
      { role: 'system', content: 'Route the user to the right team.' },
      { role: 'user', content: [{ type: 'text', text: 'A question about my invoice' }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'transfer_to_support', input: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'transfer_to_support', output: { type: 'text', value: 'Support is closed' } }] },
    ]);
  });

  it.each([
    [429, true],
    [502, true],
    [400, false],
  ])('fails a provider HTTP %i with a ModelCallError carrying the status, retryable %s', async (status, retryable) => {
    const model = aiSdkToolCallingModel({ model: failingModel(status), settings: { maxRetries: 0 } });

    const error = await lastValueFrom(from(model({ messages: question, tools: transferTools }))).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toMatchObject({ code: 'MODEL_CALL_FAILED', status, retryable });
  });

  it('aborts the model call with the request signal and errors with its reason', async () => {
    const controlled = controlledModel();
    const model = aiSdkToolCallingModel({ model: controlled.model });
    const controller = new AbortController();

    const outcome = lastValueFrom(from(model({ messages: question, tools: transferTools, signal: controller.signal }))).catch((e: unknown) => e);
    const call = await controlled.called;
    controller.abort(new Error('router cancelled'));
    controlled.close();

    await expect(outcome).resolves.toEqual(new Error('router cancelled'));
    expect(call.abortSignal?.aborted).toBe(true);
  });

  it('never calls the model when the request signal aborts before the call is subscribed', async () => {
    const mock = streamingModel(textParts(['never']));
    const model = aiSdkToolCallingModel({ model: mock });
    const controller = new AbortController();

    const response = from(model({ messages: question, tools: transferTools, signal: controller.signal }));
    controller.abort(new Error('cancelled first'));
    const error = await lastValueFrom(response).catch((e: unknown) => e);

    expect(error).toEqual(new Error('cancelled first'));
    expect(mock.doStreamCalls).toHaveLength(0);
  });

  it('reports usage on usage$, lastUsage and onUsage', async () => {
    const seen: AiSdkUsage[] = [];
    const model = aiSdkToolCallingModel({
      model: streamingModel([
        { type: 'tool-call', toolCallId: 'a', toolName: 'transfer_to_billing', input: '{}' },
        { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(120, 15) },
      ]),
      onUsage: (report) => seen.push(report),
    });
    const fromStream: AiSdkUsage[] = [];
    model.usage$.subscribe((report) => fromStream.push(report));

    await lastValueFrom(from(model({ messages: question, tools: transferTools })));

    expect(fromStream).toEqual(seen);
    expect(model.lastUsage).toMatchObject({ inputTokens: 120, outputTokens: 15, totalTokens: 135, finishReason: 'tool-calls' });
  });

  it('fails the call with a ModelCallError when onUsage throws, and reports nothing as unhandled', async () => {
    const unhandled: unknown[] = [];
    const previous = config.onUnhandledError;
    config.onUnhandledError = (error) => unhandled.push(error);
    try {
      const broken = new Error('meter broke');
      const model = aiSdkToolCallingModel({
        model: streamingModel(textParts(['fine'])),
        onUsage: () => {
          throw broken;
        },
      });

      const error = await lastValueFrom(from(model({ messages: question, tools: [] }))).catch((e: unknown) => e);
      await settle();

      expect(error).toBeInstanceOf(ModelCallError);
      expect(error).toMatchObject({ retryable: false, cause: broken });
      expect(unhandled).toEqual([]);
    } finally {
      config.onUnhandledError = previous;
    }
  });

  it('rejects bad options with a ConfigError', () => {
    expect(() => aiSdkToolCallingModel({} as never)).toThrow(ConfigError);
    expect(() => aiSdkToolCallingModel({ model: 42 } as never)).toThrow(/aiSdkToolCallingModel options: model must be an AI SDK language model/);
    expect(() => aiSdkToolCallingModel({ model: streamingModel([]), onUsage: 'x' } as never)).toThrow(/onUsage must be a function/);
  });
});

describe('aiSdkToolCallingModel, tool names that are Object.prototype keys', () => {
  const namedTool = (name: string): ToolDefinition => ({
    type: 'function',
    function: { name, description: `The ${name} tool`, parameters: { type: 'object', properties: {} } },
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('offers a tool named %s and returns the model call of it', async (name) => {
    const mock = streamingModel([
      { type: 'tool-call', toolCallId: 'c1', toolName: name, input: '{"x":1}' },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(5, 1) },
    ]);
    const model = aiSdkToolCallingModel({ model: mock });

    const response = await lastValueFrom(from(model({ messages: question, tools: [namedTool(name), ...transferTools] })));

    expect(mock.doStreamCalls[0]?.tools?.map((offered) => offered.name)).toEqual([name, 'transfer_to_billing', 'transfer_to_support']);
    expect(response).toEqual({ toolCalls: [{ id: 'c1', name, arguments: '{"x":1}' }] });
  });

  it.each(['constructor', 'toString', '__proto__'])('hands back a call of %s when no such tool was offered, like any unknown tool', async (name) => {
    const model = aiSdkToolCallingModel({
      model: streamingModel([
        { type: 'tool-call', toolCallId: 'c1', toolName: name, input: '{}' },
        { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(5, 1) },
      ]),
    });

    const response = await lastValueFrom(from(model({ messages: question, tools: transferTools })));

    expect(response.toolCalls).toEqual([{ id: 'c1', name, arguments: '{}' }]);
  });

  it('fails the call with a ConfigError naming a tool offered twice, without calling the model', async () => {
    const mock = streamingModel(textParts(['never']));
    const model = aiSdkToolCallingModel({ model: mock });

    const error = await lastValueFrom(from(model({ messages: question, tools: [...transferTools, namedTool('transfer_to_billing')] }))).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/tools\.2\.function\.name is offered twice/);
    expect(mock.doStreamCalls).toHaveLength(0);
  });
});

describe('a routing agent over aiSdkToolCallingModel, with tool names that are Object.prototype keys', () => {
  it.each(['__proto__', 'constructor', 'toString'])('hands off through a tool named %s', async (name) => {
    const billing = defineAgent('billing', async () => 'Your invoice is paid.');
    const mock = streamingModel([
      { type: 'tool-call', toolCallId: 'c1', toolName: name, input: '{}' },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(5, 1) },
    ]);
    const triage = routingAgent({
      id: 'triage',
      instructions: 'Route.',
      handoffs: [handoff({ agent: billing, name }), handoff({ agent: defineAgent('support', async () => 'Support here.') })],
      model: aiSdkToolCallingModel({ model: mock }),
    });

    await expect(lastValueFrom(invoke$(triage, 'my invoice'))).resolves.toBe('Your invoice is paid.');
    expect(mock.doStreamCalls[0]?.tools?.map((offered) => offered.name)).toEqual([name, 'transfer_to_support']);
  });
});

describe('a routing agent over aiSdkToolCallingModel in a watched run', () => {
  it("reports the routing call's tokens as a usage event under the routing agent's call", async () => {
    const billing = defineAgent('billing', async () => 'Your invoice is paid.');
    const mock = streamingModel([
      { type: 'tool-call', toolCallId: 'c1', toolName: 'transfer_to_billing', input: '{}' },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: usage(30, 8) },
    ]);
    const triage = routingAgent({ id: 'triage', instructions: 'Route.', handoffs: [billing], model: aiSdkToolCallingModel({ model: mock }) });

    const events = await lastValueFrom(triage.events$('my invoice').pipe(toArray()));

    const triageCall = events.find((event) => event.type === 'call-start' && event.agentId === 'triage');
    const usages = events.filter((event) => event.type === 'usage');
    expect(usages).toEqual([expect.objectContaining({ agentId: 'triage', inputTokens: 30, outputTokens: 8, totalTokens: 38, callId: triageCall?.callId })]);
    expect(events.filter((event) => event.type === 'usage' || (event.type === 'call-end' && event.agentId === 'triage')).map((event) => event.type)).toEqual(['usage', 'call-end']);
    expect(RunEventSchema.array().safeParse(events).success).toBe(true);
  });

  it('reports nothing into a run when called without one, and names the asker it is given', async () => {
    const mock = streamingModel([{ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(3, 1) }]);
    const model = aiSdkToolCallingModel({ model: mock });
    const seen: RunEvent[] = [];
    await lastValueFrom(observeRun('r', 'q', (run) => from(model({ messages: question, tools: [], run, agentId: 'planner' }))).pipe(tap((event) => seen.push(event))), { defaultValue: undefined });
    await lastValueFrom(from(model({ messages: question, tools: [] })));

    expect(seen.filter((event) => event.type === 'usage')).toEqual([expect.objectContaining({ agentId: 'planner', inputTokens: 3, outputTokens: 1 })]);
  });
});
