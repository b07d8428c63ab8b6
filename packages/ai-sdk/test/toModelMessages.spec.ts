import fc from 'fast-check';
import { ConfigError, type Message } from '@rxagents/core';
import { toAiSdkTools, toModelMessages } from '@rxagents/ai-sdk';

describe('toModelMessages', () => {
  it('maps system, user and plain assistant messages one to one and drops name', () => {
    expect(
      toModelMessages([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi', name: 'ada' },
        { role: 'assistant', content: 'Hello', name: 'support' },
      ]),
    ).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello' },
    ]);
  });

  it('maps tool calls to tool-call parts and tool results to the tool named by the call', () => {
    expect(
      toModelMessages([
        { role: 'assistant', content: 'Transferring', toolCalls: [{ id: 'c1', name: 'transfer_to_billing', arguments: '{"reason":"invoice"}' }] },
        { role: 'tool', content: 'ok', toolCallId: 'c1' },
      ]),
    ).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Transferring' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'transfer_to_billing', input: { reason: 'invoice' } },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'transfer_to_billing', output: { type: 'text', value: 'ok' } }] },
    ]);
  });

  it('keeps unparsable arguments as text, names an orphan result by its name, and sends an id-less tool message as user text', () => {
    expect(
      toModelMessages([
        { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'lookup', arguments: 'not json' }] },
        { role: 'tool', content: 'found', toolCallId: 'c9', name: 'search' },
        { role: 'tool', content: 'stray' },
      ]),
    ).toEqual([
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: 'not json' }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c9', toolName: 'search', output: { type: 'text', value: 'found' } }] },
      { role: 'user', content: 'stray' },
    ]);
  });

  it('refuses a message of another role (an OpenAI "developer" message read from JSON) with a ConfigError naming it', () => {
    const history = [{ role: 'user', content: 'Hi' }, { role: 'developer', content: 'Be brief.' }] as unknown as Message[];

    expect(() => toModelMessages(history)).toThrow(ConfigError);
    expect(() => toModelMessages(history)).toThrow(/messages\.1\.role must be system, user, assistant or tool, got "developer"/);
    expect(() => toModelMessages([null] as unknown as Message[])).toThrow(/messages\.0\.role must be system, user, assistant or tool/);
  });

  it('refuses a tool call without a string id, name or arguments (history read from JSON), naming the field', () => {
    const history = [{ role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'transfer_to_billing', arguments: '{}' }, { id: 'c2', name: 'lookup' }] }] as unknown as Message[];

    expect(() => toModelMessages(history)).toThrow(ConfigError);
    expect(() => toModelMessages(history)).toThrow(/messages\.0\.toolCalls\.1\.arguments must be a string, got undefined/);
    expect(() => toModelMessages([{ role: 'assistant', content: '', toolCalls: [null] }] as unknown as Message[])).toThrow(/messages\.0\.toolCalls\.0\.id must be a string/);
  });

  it('keeps the length, order, and roles of any history without tool messages', () => {
    const message = fc.record({
      role: fc.constantFrom('system' as const, 'user' as const, 'assistant' as const),
      content: fc.string(),
    });
    fc.assert(
      fc.property(fc.array(message), (history: Message[]) => {
        const converted = toModelMessages(history);
        expect(converted.map((m) => m.role)).toEqual(history.map((m) => m.role));
        expect(converted.map((m) => m.content)).toEqual(history.map((m) => m.content));
      }),
    );
  });

  it.each([null, undefined, 42, {}])('refuses %p as the messages with a ConfigError naming messages', (bad) => {
    expect(() => toModelMessages(bad as never)).toThrow(ConfigError);
    expect(() => toModelMessages(bad as never)).toThrow(/^toModelMessages: messages must be an array of messages/);
  });
});

describe('toAiSdkTools', () => {
  it('keys tools by name, keeps the description and JSON Schema, and has no execute', async () => {
    const tools = toAiSdkTools([
      { type: 'function', function: { name: 'transfer_to_billing', description: 'Billing', parameters: { type: 'object', properties: { a: { type: 'number' } } } } },
    ]);

    const billing = tools.transfer_to_billing;
    expect(Object.keys(tools)).toEqual(['transfer_to_billing']);
    expect(billing?.description).toBe('Billing');
    expect(billing?.execute).toBeUndefined();
    expect(billing && 'jsonSchema' in billing.inputSchema ? await billing.inputSchema.jsonSchema : undefined).toEqual({
      type: 'object',
      properties: { a: { type: 'number' } },
    });
  });

  it.each([null, undefined, 42, {}])('refuses %p as the definitions, or as one of them, with a ConfigError naming it', (bad) => {
    expect(() => toAiSdkTools(bad as never)).toThrow(ConfigError);
    expect(() => toAiSdkTools(bad as never)).toThrow(/^AI SDK tools: tools must be an array of tool definitions/);
    expect(() => toAiSdkTools([bad] as never)).toThrow(/^AI SDK tools: tools.0 must be a tool definition/);
  });
});
