import { TestScheduler } from 'rxjs/testing';
import { NEVER, of, timer, map, toArray } from 'rxjs';
import { AgentError, ConfigError, defineAgent, lastValue, invoke$, type Agent, type Message } from '@rxagents/core';
import { hangingAgent, recordingAgent, scriptedAgent } from '@rxagents/testing';
import { z } from 'zod';
import {
  handoff,
  HandoffContractError,
  HandoffCycleError,
  handoffFilters,
  HandoffRoutingError,
  HandoffValidationError,
  routingAgent,
  type ToolCallingModel,
  type ToolCallingRequest,
} from '@rxagents/handoff';

const testScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const billingAgent = () => recordingAgent('billing', async () => 'Billing: your invoice is paid.', { name: 'Billing', role: 'Billing Specialist', goal: 'Resolve payment questions' });
const supportAgent = () => recordingAgent('support', async () => 'Support: try turning it off and on.', { name: 'Support' });

const callTool = (name: string, args = '{}'): ToolCallingModel => () => Promise.resolve({ toolCalls: [{ id: 'call-1', name, arguments: args }] });

describe('routingAgent', () => {
  it('refuses a blank id and names the likely intended key of a typo', () => {
    expect(() => routingAgent({ id: ' ', handoffs: [] })).toThrow('routingAgent config: id must be a non-blank string');
    expect(() => routingAgent({ id: 'a', handofs: [] } as never)).toThrow(/handofs is not a known option \(did you mean handoffs\?\)/);
  });

  it('a condition that answers a non-boolean (a forgotten return) fails the call with a HandoffContractError', async () => {
    const assistant = routingAgent({ id: 'assistant', handoffs: [handoff({ agent: billingAgent(), condition: (() => undefined) as never })] });
    await expect(lastValue(invoke$(assistant, 'invoice'))).rejects.toMatchObject({ cause: expect.any(HandoffContractError) });
  });

  it('a model that returns no response object (a bare string, undefined) fails the call with a HandoffContractError, never an empty reply', async () => {
    const bare = routingAgent({ id: 'assistant', model: (async () => 'We are open 9 to 5.') as never, handoffs: [billingAgent()] });
    await expect(lastValue(invoke$(bare, 'hours?'))).rejects.toMatchObject({ cause: expect.any(HandoffContractError) });
    const nothing = routingAgent({ id: 'assistant', model: (() => undefined) as never, handoffs: [billingAgent()] });
    await expect(lastValue(invoke$(nothing, 'hours?'))).rejects.toMatchObject({ cause: expect.any(HandoffContractError) });
  });

  it('a model whose tool calls or content are malformed (a null call, a numeric name, numeric content) fails the call with a HandoffContractError at that index', async () => {
    const answering = (response: unknown) => routingAgent({ id: 'assistant', model: (async () => response) as never, handoffs: [billingAgent()] });
    const failure = (response: unknown) => lastValue(invoke$(answering(response), 'hours?')).catch((error: AgentError) => error.cause);
    await expect(failure({ toolCalls: [null] })).resolves.toMatchObject({ name: 'HandoffContractError', message: expect.stringContaining('answered the tool call null at index 0') });
    await expect(failure({ toolCalls: [{ id: 'c', name: 'transfer_to_billing', arguments: '{}' }, { id: 'd', name: 42, arguments: '{}' }] })).resolves.toMatchObject({
      name: 'HandoffContractError',
      message: expect.stringContaining('at index 1'),
    });
    await expect(failure({ content: 42 })).resolves.toMatchObject({ name: 'HandoffContractError', message: expect.stringContaining('answered content 42') });
  });

  it('a model calling unknown tools with huge names fails with a HandoffValidationError that echoes previews, never the whole names', async () => {
    const huge = 'x'.repeat(100_000);
    const calls = Array.from({ length: 50 }, (_, index) => ({ id: `call-${index}`, name: huge, arguments: '{}' }));
    const assistant = routingAgent({ id: 'assistant', model: async () => ({ toolCalls: calls }), handoffs: [billingAgent()] });
    const cause = await lastValue(invoke$(assistant, 'hours?')).catch((error: AgentError) => error.cause);
    expect(cause).toBeInstanceOf(HandoffValidationError);
    expect((cause as HandoffValidationError).message).toContain('and 45 more, but only transfer_to_billing are offered');
    expect((cause as HandoffValidationError).message.length).toBeLessThan(1000);
  });

  it('routes a tool name that is also an Object.prototype key (a name override "__proto__")', async () => {
    const billing = billingAgent();
    const assistant = routingAgent({ id: 'assistant', model: callTool('__proto__'), handoffs: [handoff({ agent: billing, name: '__proto__' })] });
    await expect(lastValue(invoke$(assistant, 'refund'))).resolves.toBe('Billing: your invoice is paid.');
  });

  it('automatically transfers billing questions to Billing by topic condition, with no model', async () => {
    const billing = billingAgent();
    const mainAgent = routingAgent({
      id: 'assistant',
      name: 'Assistant',
      instructions: 'You are a helpful assistant',
      handoffs: [handoff({ agent: billing, description: 'For billing', condition: handoffFilters.topic(['invoice', 'payment', 'refund']) })],
    });
    await expect(lastValue(invoke$(mainAgent, 'I have a question about my invoice'))).resolves.toBe('Billing: your invoice is paid.');
    expect(billing.inputs).toEqual(['I have a question about my invoice']);
    expect(billing.calls[0]?.options.metadata?.handoffChain).toEqual(['assistant']);
  });

  it('with a model, offers the handoff tools and executes the transfer_to_* it calls', async () => {
    const billing = billingAgent();
    const support = supportAgent();
    const requests: ToolCallingRequest[] = [];
    const model: ToolCallingModel = (request) => {
      requests.push(request);
      return Promise.resolve({ toolCalls: [{ id: 'c1', name: 'transfer_to_support', arguments: '{}' }] });
    };
    const history: Message[] = [{ role: 'user', content: 'earlier' }];
    const mainAgent = routingAgent({
      id: 'assistant',
      instructions: 'You are a helpful assistant',
      handoffs: [{ agent: billing, description: 'Transfer for payment or billing questions' }, handoff({ agent: support, description: 'Transfer for technical issues' })],
      model,
    });
    await expect(lastValue(invoke$(mainAgent, 'My router is broken', { context: history }))).resolves.toBe('Support: try turning it off and on.');
    expect(requests[0]?.tools.map((tool) => [tool.function.name, tool.function.description])).toEqual([
      ['transfer_to_billing', 'Transfer for payment or billing questions'],
      ['transfer_to_support', 'Transfer for technical issues'],
    ]);
    expect(requests[0]?.messages).toEqual([
      { role: 'system', content: 'You are a helpful assistant' },
      { role: 'user', content: 'earlier' },
      { role: 'user', content: 'My router is broken' },
    ]);
    expect(requests[0]?.signal).toBeInstanceOf(AbortSignal);
    expect(support.calls[0]?.options.context).toEqual(history);
    expect(billing.calls).toHaveLength(0);
  });

  it('a condition match wins over the model, which is then never asked', async () => {
    const model = jest.fn(callTool('transfer_to_support'));
    const billing = billingAgent();
    const mainAgent = routingAgent({ id: 'a', handoffs: [handoff({ agent: billing, condition: handoffFilters.always() }), supportAgent()], model });
    await lastValue(invoke$(mainAgent, 'hi'));
    expect(model).not.toHaveBeenCalled();
    expect(billing.calls).toHaveLength(1);
  });

  it('a model answer without a tool call is the reply', async () => {
    const mainAgent = routingAgent({ id: 'a', handoffs: [billingAgent()], model: () => of({ content: 'I can answer that myself.' }) });
    await expect(lastValue(invoke$(mainAgent, 'What is 2 + 2?'))).resolves.toBe('I can answer that myself.');
  });

  it('with neither a matching condition nor a model, fails with a clear error', async () => {
    const mainAgent = routingAgent({ id: 'assistant', handoffs: [billingAgent()] });
    const failure = lastValue(invoke$(mainAgent, 'hello'));
    await expect(failure).rejects.toBeInstanceOf(AgentError);
    await expect(failure).rejects.toMatchObject({ cause: expect.any(HandoffRoutingError) });
    await expect(failure).rejects.toThrow('no handoff condition matched the input and no model is configured to choose');
  });

  it('passes the tool call arguments through the handoff inputSchema', async () => {
    const refunds = recordingAgent('refunds', async () => 'refund started', { name: 'Refunds' });
    const toRefunds = handoff({ agent: refunds, inputSchema: z.object({ orderId: z.string() }) });
    const good = routingAgent({ id: 'a', handoffs: [toRefunds], model: callTool('transfer_to_refunds', '{"orderId":"42"}') });
    await expect(lastValue(invoke$(good, 'refund #42'))).resolves.toBe('refund started');
    expect(refunds.calls[0]?.options.metadata?.handoffArguments).toEqual({ orderId: '42' });
    const bad = routingAgent({ id: 'a', handoffs: [toRefunds], model: callTool('transfer_to_refunds', '{"orderId":42}') });
    await expect(lastValue(invoke$(bad, 'refund #42'))).rejects.toMatchObject({ cause: expect.any(HandoffValidationError) });
    expect(refunds.calls).toHaveLength(1);
  });

  it('a model calling a tool it was not offered fails with HandoffValidationError', async () => {
    const mainAgent = routingAgent({ id: 'a', handoffs: [billingAgent()], model: callTool('transfer_to_nobody') });
    await expect(lastValue(invoke$(mainAgent, 'x'))).rejects.toMatchObject({ cause: expect.any(HandoffValidationError) });
  });

  it('a target that fails makes the call fail', async () => {
    const broken = defineAgent('broken', () => Promise.reject(new Error('down')));
    const mainAgent = routingAgent({ id: 'a', handoffs: [handoff({ agent: broken, condition: handoffFilters.always() })] });
    await expect(lastValue(invoke$(mainAgent, 'x'))).rejects.toThrow('down');
  });

  it('two routing agents handing to each other are refused as a cycle (A -> B -> A)', async () => {
    const lazy: { current?: Agent } = {};
    const bProxy: Agent = { id: 'b', chat: (input, options) => lazy.current!.chat(input, options) };
    const a = routingAgent({ id: 'a', handoffs: [handoff({ agent: bProxy, condition: handoffFilters.always() })] });
    lazy.current = routingAgent({ id: 'b', handoffs: [handoff({ agent: a, condition: handoffFilters.always() })] });
    const failure = lastValue(invoke$(a, 'ping'));
    await expect(failure).rejects.toMatchObject({ cause: { cause: expect.any(HandoffCycleError) } });
    await expect(failure).rejects.toThrow('Handoff cycle detected: a -> b -> a');
  });

  it('cancelling the call aborts the model and the target', () => {
    testScheduler().run(() => {
      const stuck = hangingAgent('stuck');
      const viaCondition = routingAgent({ id: 'a', handoffs: [handoff({ agent: stuck, condition: handoffFilters.always() })] });
      invoke$(viaCondition, 'x').subscribe().unsubscribe();
      expect(stuck.aborted).toBe(true);
      let modelSignal: AbortSignal | undefined;
      const viaModel = routingAgent({ id: 'b', handoffs: [stuck], model: ({ signal }) => ((modelSignal = signal), NEVER) });
      invoke$(viaModel, 'x').subscribe().unsubscribe();
      expect(modelSignal?.aborted).toBe(true);
    });
  });

  it('runs on virtual time: a model that answers later, then a scripted target', () => {
    testScheduler().run(({ expectObservable }) => {
      const billing = scriptedAgent('billing', { reply: 'paid', delay: 4 }, { name: 'Billing' });
      const mainAgent = routingAgent({ id: 'a', handoffs: [billing], model: () => timer(3).pipe(map(() => ({ toolCalls: [{ id: 'c', name: 'transfer_to_billing', arguments: '' }] }))) });
      expectObservable(invoke$(mainAgent, 'invoice?')).toBe('-------(r|)', { r: 'paid' });
    });
  });

  it('is a frozen Agent exposing its normalised handoffs, and validates its config', () => {
    const mainAgent = routingAgent({ id: 'a', name: 'Assistant', role: 'Router', goal: 'Route', handoffs: [billingAgent(), { agent: supportAgent(), description: 'For technical issues' }] });
    expect(mainAgent.handoffs.map((h) => h.toolName)).toEqual(['transfer_to_billing', 'transfer_to_support']);
    expect(Object.isFrozen(mainAgent)).toBe(true);
    expect(() => routingAgent({ id: '', handoffs: [] })).toThrow(ConfigError);
    expect(() => routingAgent({ id: 'a', handoffs: [42 as never] })).toThrow('handoffs: 0 must be an agent, a { agent, ... } config or a Handoff, got 42');
  });

  it('fails with HandoffRoutingError when the model completes without an answer', async () => {
    const billing = billingAgent();
    const router = routingAgent({ id: 'router', handoffs: [handoff({ agent: billing })], model: () => of() });
    const error = (await lastValue(invoke$(router, 'hello')).catch((e: unknown) => e)) as AgentError;
    expect(error).toBeInstanceOf(AgentError);
    expect(error.cause).toBeInstanceOf(HandoffRoutingError);
    expect((error.cause as HandoffRoutingError).message).toBe('No handoff route from "router": the model completed without an answer');
    expect(billing.inputs).toEqual([]);
  });

  it.each([undefined, null, 42, {}])('%p as chat options, or a non-string input, is a ConfigError naming the argument (the Agent contract; stream and invoke always pass both)', (bad) => {
    const agent = routingAgent({ id: 'desk', handoffs: [defineAgent('billing', async () => 'paid')] });
    expect(() => agent.chat('hi', bad as never)).toThrow(ConfigError);
    expect(() => agent.chat('hi', bad as never)).toThrow(/^desk.chat: options must be ChatOptions/);
    expect(() => agent.chat(bad as never, { signal: new AbortController().signal })).toThrow(/^desk.chat: input must be a string/);
  });
});

describe('routingAgent: what its model is told about the asker', () => {
  it('names the routing agent in agentId, and passes its call in a watched run as run', async () => {
    const requests: ToolCallingRequest[] = [];
    const model = async (request: ToolCallingRequest) => {
      requests.push(request);
      return { toolCalls: [{ id: 'c1', name: 'transfer_to_billing', arguments: '{}' }] };
    };
    const triage = routingAgent({ id: 'triage', model, handoffs: [defineAgent('billing', async () => 'paid')] });

    await lastValue(invoke$(triage, 'invoice'));
    const events = await lastValue(triage.events$('invoice').pipe(toArray()));

    expect(requests.map((request) => request.agentId)).toEqual(['triage', 'triage']);
    expect(requests[0]?.run).toBeUndefined();
    const triageCall = events.find((event) => event.type === 'call-start' && event.agentId === 'triage');
    expect(requests[1]?.run?.callId).toBe(triageCall?.callId);
  });
});
