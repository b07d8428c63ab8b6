import { of } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { defineAgent, invoke, invoke$, observeRun } from '@rxagents/core';
import { recordingAgent } from '@rxagents/testing';
import {
  handoff,
  HandoffContractError,
  handoffFilters,
  HandoffRoutingError,
  HandoffValidationError,
  routingAgent,
  runWithHandoffChain,
  type HandoffEnabledContext,
  type ToolCallingModel,
  type ToolCallingRequest,
} from '@rxagents/handoff';

const testScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

/** A model that records what it was offered and calls `tool` when given, else answers itself. */
function modelCalling(tool: string | undefined, requests: ToolCallingRequest[]): ToolCallingModel {
  return (request) => {
    requests.push(request);
    return Promise.resolve(tool === undefined ? { content: 'I answer myself' } : { toolCalls: [{ id: 'c1', name: tool, arguments: '{}' }] });
  };
}

describe('isEnabled', () => {
  it('defaults to true in the resolved config; anything but a boolean or a function is a ConfigError', () => {
    const billing = defineAgent('billing', async () => 'paid');
    expect(handoff({ agent: billing }).config.isEnabled).toBe(true);
    expect(() => handoff({ agent: billing, isEnabled: 'yes' as never })).toThrow('Handoff config: isEnabled must be a boolean or a function');
  });

  it('false hides the handoff from the model: its tool is not offered, and calling it anyway is refused', async () => {
    const billing = recordingAgent('billing', async () => 'paid');
    const support = recordingAgent('support', async () => 'fixed');
    const requests: ToolCallingRequest[] = [];
    const desk = routingAgent({ id: 'desk', handoffs: [handoff({ agent: billing, isEnabled: false }), support], model: modelCalling('transfer_to_support', requests) });
    await expect(invoke(desk, 'help')).resolves.toBe('fixed');
    expect(requests[0]?.tools.map((tool) => tool.function.name)).toEqual(['transfer_to_support']);
    const sneaky = routingAgent({ id: 'desk', handoffs: [handoff({ agent: billing, isEnabled: false }), support], model: modelCalling('transfer_to_billing', []) });
    await expect(invoke(sneaky, 'help')).rejects.toMatchObject({ cause: expect.any(HandoffValidationError) });
    expect(billing.calls).toHaveLength(0);
  });

  it('a disabled handoff is not routed to by its condition either', async () => {
    const billing = recordingAgent('billing', async () => 'paid');
    const desk = routingAgent({ id: 'desk', handoffs: [handoff({ agent: billing, condition: handoffFilters.always(), isEnabled: false })] });
    await expect(invoke(desk, 'invoice')).rejects.toMatchObject({ cause: expect.any(HandoffRoutingError) });
    expect(billing.calls).toHaveLength(0);
  });

  it('a predicate over the call decides per call: the source, the target, the input, history, metadata, chain and run', async () => {
    const billing = recordingAgent('billing', async () => 'paid');
    const asked: HandoffEnabledContext[] = [];
    const vipBilling = handoff({
      agent: billing,
      condition: handoffFilters.always(),
      isEnabled: (context) => {
        asked.push(context);
        return context.metadata.tier === 'vip';
      },
    });
    const desk = routingAgent({ id: 'desk', handoffs: [vipBilling], model: modelCalling(undefined, []) });
    await expect(runWithHandoffChain(['gateway'], () => invoke(desk, 'refund', { metadata: { tier: 'vip' }, context: [{ role: 'user', content: 'hi' }] }))).resolves.toBe('paid');
    await expect(invoke(desk, 'refund', { metadata: { tier: 'free' } })).resolves.toBe('I answer myself');
    expect(asked[0]).toMatchObject({ source: desk, target: billing, input: 'refund', metadata: { tier: 'vip' }, messages: [{ role: 'user', content: 'hi' }], handoffChain: ['gateway'], run: undefined });
    expect(billing.calls).toHaveLength(1);
  });

  it('an async predicate (a Promise) counts, and the run it reports into is passed', async () => {
    const billing = recordingAgent('billing', async () => 'paid');
    let sawRun = false;
    const desk = routingAgent({
      id: 'desk',
      handoffs: [handoff({ agent: billing, condition: handoffFilters.always(), isEnabled: async ({ run }) => {
        sawRun = run !== undefined;
        return true;
      } })],
    });
    const events: string[] = [];
    await new Promise<void>((resolve) => observeRun('desk', 'x', (run) => invoke$(desk, 'x', { run })).subscribe({ next: (event) => events.push(event.type), complete: resolve }));
    expect(sawRun).toBe(true);
    expect(events).toContain('handoff');
  });

  it('an Observable predicate keeps virtual time: the call waits for its answer on the scheduler', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const billing = defineAgent('billing', () => of('paid'));
      const desk = routingAgent({ id: 'desk', handoffs: [handoff({ agent: billing, condition: handoffFilters.always(), isEnabled: () => cold('30ms (t|)', { t: true }) })] });
      expectObservable(invoke$(desk, 'x')).toBe('30ms (r|)', { r: 'paid' });
    });
  });

  it('a predicate answering anything but a boolean fails the call with a HandoffContractError naming it', async () => {
    const billing = defineAgent('billing', async () => 'paid');
    const desk = routingAgent({ id: 'desk', handoffs: [handoff({ agent: billing, condition: handoffFilters.always(), isEnabled: (() => 'yes') as never })] });
    const failure = await invoke(desk, 'x').catch((error: unknown) => error);
    expect((failure as Error).cause).toBeInstanceOf(HandoffContractError);
    expect((failure as Error).message).toContain('the isEnabled of transfer_to_billing answered "yes"');
  });

  it('execute runs a handoff whatever isEnabled says: it governs what a router offers, not an explicit call', async () => {
    const billing = defineAgent('billing', async () => 'paid');
    await expect(handoff({ agent: billing, isEnabled: false }).execute({ id: 'triage' }, { input: 'x' })).resolves.toMatchObject({ success: true, output: 'paid' });
  });
});
